/// The decisions of one WebSocket connection, without its socket: where the closing
/// handshake stands (RFC 6455 §7.1), when to ping (§5.5.2), when a silent client is taken
/// for gone, when to stop waiting for a close. Pure: it takes what happened and the time
/// (`C.Instant`) and returns what to do (`Step`); `WebSocketConnection` carries the steps
/// out. One timer serves every deadline: it is set for the earliest, and a deadline that
/// moved later since (the client sent something) is found when it fires, and slept on.
struct WebSocketStateMachine<C: Clock> where C.Duration == Duration {
    /// Where the connection is in the closing handshake.
    enum State: Equatable {
        /// Messages go both ways.
        case open
        /// The server sent its close frame and waits for the client's (§7.1.2); no more
        /// messages or pongs go out (§5.5.1), and messages that still come in are dropped.
        case closeSent
        /// Over: both close frames crossed, or the connection failed. What is queued is
        /// being written; then the TCP connection closes, the server first (§7.1.1).
        case closed
    }

    /// The timeouts, from `WebSocketConfiguration`.
    struct Timeouts: Equatable {
        /// Between pings; nil sends none.
        var ping: Duration?
        /// Silence after which the client is taken for gone; nil never.
        var idle: Duration?
        /// How long the last writes and the client's close frame are waited for.
        var close: Duration
    }

    /// What the connection does next.
    enum Action: Equatable {
        case none
        /// Send a ping.
        case ping
        /// Read what waits before deciding: a close frame or a pong may be among it.
        case readFirst
        /// The client's close frame did not come in time: end the session (1006).
        case giveUpClosingHandshake
        /// Close the TCP connection now, for this reason.
        case close(StreamEndReason)
    }

    /// An action, and the instant to set the connection's timer to (none: leave it).
    struct Step: Equatable {
        var action = Action.none
        var timer: C.Instant?
    }

    let timeouts: Timeouts
    private(set) var state = State.open
    /// Set by a blackhole fault: no pings, and no timeout ends it (only the server does).
    private(set) var isBlackholed = false
    /// When something last came from the client.
    private var lastInput: C.Instant
    private var nextPing: C.Instant?
    /// While closing: when the server stops waiting.
    private var closeDeadline: C.Instant?
    private var timerFiresAt: C.Instant?

    /// The connection switched to WebSocket at `now`.
    init(timeouts: Timeouts, openedAt now: C.Instant) {
        self.timeouts = timeouts
        lastInput = now
        nextPing = timeouts.ping.flatMap { $0 > .zero ? now.advanced(by: $0) : nil }
    }

    /// The instant to set the timer to first.
    mutating func start() -> Step {
        Step(timer: rescheduled())
    }

    /// Bytes came from the client: a sign of life. The timer is not touched.
    mutating func received(at now: C.Instant) {
        lastInput = now
    }

    /// The server sent its close frame (§7.1.2): the client's is awaited for `close`.
    mutating func closeSent(at now: C.Instant) -> Step {
        guard state == .open else { return Step() }
        state = .closeSent
        nextPing = nil
        closeDeadline = now.advanced(by: timeouts.close)
        return Step(timer: rescheduled())
    }

    /// The session is over (both close frames crossed, or the client broke the protocol):
    /// what is queued goes out, within a fresh `close`, then the TCP connection closes.
    mutating func finished(at now: C.Instant) -> Step {
        guard state != .closed else { return Step() }
        state = .closed
        nextPing = nil
        closeDeadline = now.advanced(by: timeouts.close)
        timerFiresAt = nil
        return Step(timer: rescheduled())
    }

    /// A blackhole: nothing goes out any more, and only the server ends the connection.
    mutating func blackholed() {
        isBlackholed = true
        nextPing = nil
    }

    /// The timer fired. `hasUnreadInput`: bytes the client sent wait unread.
    mutating func timerFired(at now: C.Instant, hasUnreadInput: Bool) -> Step {
        timerFiresAt = nil
        if let closeDeadline, closeDeadline <= now {
            if hasUnreadInput, state == .closeSent { return Step(action: .readFirst) }
            switch state {
            case .open: break
            case .closeSent: return Step(action: .giveUpClosingHandshake)
            case .closed: return Step(action: .close(.connectionClosed))
            }
        }
        if state == .open, !isBlackholed, let idle = timeouts.idle, lastInput.advanced(by: idle) <= now {
            // Bytes whose read event is still queued count: a pong may be among them.
            if hasUnreadInput { return Step(action: .readFirst) }
            return Step(action: .close(.connectionClosed))
        }
        if let ping = nextPing, ping <= now, let interval = timeouts.ping {
            var next = ping.advanced(by: interval)
            while next <= now { next = next.advanced(by: interval) }
            nextPing = next
            return Step(action: .ping, timer: rescheduled())
        }
        return Step(timer: rescheduled())
    }

    /// After `readFirst`: decides again, without the input that has now been read.
    mutating func afterReading(at now: C.Instant) -> Step {
        timerFired(at: now, hasUnreadInput: false)
    }

    /// The earliest deadline still ahead, when the timer is not already set for it.
    private mutating func rescheduled() -> C.Instant? {
        var earliest: C.Instant?
        func consider(_ instant: C.Instant?) {
            guard let instant else { return }
            if let current = earliest, current <= instant { return }
            earliest = instant
        }
        consider(nextPing)
        consider(closeDeadline)
        if state == .open, !isBlackholed, let idle = timeouts.idle { consider(lastInput.advanced(by: idle)) }
        guard let earliest else { return nil }
        if let firing = timerFiresAt, firing <= earliest { return nil }
        timerFiresAt = earliest
        return earliest
    }
}
