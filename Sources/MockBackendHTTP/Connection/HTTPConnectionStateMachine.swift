/// The decisions of one HTTP/1.1 connection, without its socket: which timeout runs, when
/// reading stops and starts again, when and how the connection closes. Pure: it takes what
/// happened and the time it happened (`C.Instant`) and returns what to do (`Step`), so it
/// is tested with a manual clock and no socket; `HTTPConnection` only carries the steps
/// out.
///
/// Timeouts (RFC 9112 §9.6): a connection that has not sent a whole request head within
/// `header` (slowloris), or a whole body within `body`, is closed; a keep-alive connection
/// is closed after `idle` of idleness, counted from the end of its last response; no
/// timeout runs while a response is in flight; a connection is never closed on a deadline
/// while input it may already have sent waits unread (`Action.readFirst`). A close after a
/// last response lingers: FIN, then input is drained until the client closes or `linger`
/// passes (closing with unread input would send RST, and the client could lose the
/// response it has not read yet).
struct HTTPConnectionStateMachine<C: Clock> where C.Duration == Duration {
    /// Where the connection is in its life.
    enum Phase: Equatable {
        /// Reading and answering requests.
        case open
        /// The last response is queued; the connection closes once it is written.
        case closingAfterWrites
        /// FIN sent; input is drained until EOF or the linger timeout.
        case lingering
        /// Closed. Nothing happens any more.
        case closed
    }

    /// Which timeout runs.
    enum Deadline: Equatable {
        case none, header, body, idle, linger
    }

    /// What the connection is doing, as far as its timeouts go.
    enum Activity: Equatable {
        /// A response is in flight or requests wait to be answered: no timeout.
        case responding
        /// A request body is arriving.
        case readingBody
        /// Part of a request head has arrived.
        case readingHead
        /// Between requests (before the first one: waiting for its head).
        case betweenRequests
    }

    /// What the connection does next.
    enum Action: Equatable {
        case none
        /// Answer the requests parsed and waiting.
        case processPending
        /// Read again (reading had been suspended).
        case resumeReading
        /// Read nothing more; answer what is queued.
        case stopReadingAndProcess
        /// Send FIN, read again even after a stop, and wait for the client's close.
        case linger
        /// Read what waits before deciding: a request may be in flight.
        case readFirst(Deadline)
        /// Close now, for this reason.
        case close(StreamEndReason)
    }

    /// An action, and the instant to set the connection's one timer to (none: leave it).
    struct Step: Equatable {
        var action = Action.none
        var timer: C.Instant?
    }

    /// The timeouts, from `HTTPServerConfiguration`.
    struct Timeouts: Equatable {
        var header: Duration
        var body: Duration
        var idle: Duration
        var linger: Duration
        /// The linger while the server stops: short, as everything is closing.
        var stoppingLinger: Duration = .milliseconds(200)
    }

    let timeouts: Timeouts
    /// Whether a close lingers (FIN, then drain input) or happens at once: a transport that
    /// has no half-close of its own (TLS closes with its own alert) does not linger.
    let lingers: Bool
    private(set) var phase = Phase.open
    private(set) var deadlinePhase = Deadline.none
    /// When the running timeout passes; nil for none.
    private(set) var deadline: C.Instant?
    /// When the timer is set to fire next; nil when it is not set.
    private var timerFiresAt: C.Instant?
    /// The client sent FIN.
    private(set) var peerClosed = false
    /// The server is stopping.
    private(set) var shuttingDown = false
    private(set) var servedRequests = 0

    init(timeouts: Timeouts, lingers: Bool = true) {
        self.timeouts = timeouts
        self.lingers = lingers
    }

    /// The connection starts: waiting for the first request head.
    mutating func start(at now: C.Instant) -> Step {
        Step(timer: setDeadline(.header, at: now))
    }

    /// What the connection is doing changed: picks the timeout for it. A busy keep-alive
    /// connection does not touch the timer on every request: changing phase records the
    /// new deadline, and the timer is set only when it comes earlier than the next firing
    /// (a deadline that moved later is found when the timer fires, and slept on). Re-arming
    /// happens only on a change of phase, so a client trickling bytes cannot extend its
    /// deadline. Every response passes through `.responding`, so the phase after it is
    /// armed afresh: the idle timeout counts from the end of the last response.
    mutating func update(_ activity: Activity, at now: C.Instant) -> Step {
        guard phase == .open else { return Step() }
        let wanted: Deadline =
            switch activity {
            case .responding: .none
            case .readingBody: .body
            case .readingHead: .header
            case .betweenRequests: servedRequests == 0 ? .header : .idle
            }
        return Step(timer: setDeadline(wanted, at: now))
    }

    /// A response has been written to its end.
    mutating func responseCompleted(keepAlive: Bool, writesPending: Bool, at now: C.Instant) -> Step {
        servedRequests += 1
        guard keepAlive, !shuttingDown else { return closeAfterWrites(writesPending: writesPending, at: now) }
        return Step(action: .processPending)
    }

    /// The last response is queued (`Connection: close`, HTTP/1.0, a parse error, the
    /// server stopping): close once it is written.
    mutating func closeAfterWrites(writesPending: Bool, at now: C.Instant) -> Step {
        guard phase == .open else { return Step() }
        phase = .closingAfterWrites
        return writesPending ? Step() : beginLinger(at: now)
    }

    /// Everything queued has been written. `responseInFlight`: a response still produces.
    mutating func writesDrained(responseInFlight: Bool, at now: C.Instant) -> Step {
        guard phase == .closingAfterWrites, !responseInFlight else { return Step() }
        return beginLinger(at: now)
    }

    private mutating func beginLinger(at now: C.Instant) -> Step {
        guard phase == .closingAfterWrites else { return Step() }
        if peerClosed || !lingers { return close(.connectionClosed) }
        phase = .lingering
        return Step(action: .linger, timer: setDeadline(.linger, at: now))
    }

    /// The client sent FIN. A stream ends at once (EventSource never half-closes); requests
    /// already read are still answered, then the connection closes.
    mutating func peerDidClose(streaming: Bool) -> Step {
        peerClosed = true
        if phase == .lingering || streaming { return close(.clientClosed) }
        return Step(action: .stopReadingAndProcess)
    }

    /// The requests waiting have been answered as far as they can be now. A connection
    /// whose client has left, or whose server stops, closes once nothing is in flight:
    /// at once when the client left, after a FIN and a drain when the server stops.
    /// Otherwise it reads again when `canReadMore`, and its timeout follows `activity`.
    mutating func pendingProcessed(
        idle: Bool, writesPending: Bool, canReadMore: Bool, activity: Activity, at now: C.Instant
    ) -> Step {
        guard phase == .open else { return Step() }
        if idle, peerClosed || shuttingDown {
            return peerClosed ? close(.clientClosed) : closeAfterWrites(writesPending: writesPending, at: now)
        }
        var step = update(activity, at: now)
        if canReadMore { step.action = .resumeReading }
        return step
    }

    /// The timer fired. `hasUnreadInput`: bytes the client sent wait unread.
    mutating func timerFired(at now: C.Instant, hasUnreadInput: Bool) -> Step {
        timerFiresAt = nil
        guard let deadline, phase != .closed else { return Step() }
        // The deadline may have moved later since the timer was set: sleep on.
        if deadline > now { return Step(timer: schedule(deadline)) }
        switch deadlinePhase {
        case .none:
            return Step()
        case .linger:
            return close(.connectionClosed)
        case .header, .body, .idle:
            // RFC 9112 §9.6: never close a connection on which a request may be in flight.
            // Its bytes can be in the socket with their read event queued behind this one.
            if hasUnreadInput { return Step(action: .readFirst(deadlinePhase)) }
            return close(.connectionClosed)
        }
    }

    /// After `readFirst`: the deadline of `phase` still stands (bytes never move it; only
    /// a request they complete changes the phase). Input no parser has seen yet (part of a
    /// TLS record) starts a request head all the same: after the idle timeout, the header
    /// timeout runs from now.
    mutating func deadlineAfterReading(_ before: Deadline, at now: C.Instant) -> Step {
        guard phase == .open, deadlinePhase == before, let deadline, deadline <= now else { return Step() }
        if before == .idle { return Step(timer: setDeadline(.header, at: now)) }
        return close(.connectionClosed)
    }

    /// The server is stopping: idle connections close, streams end, a response in flight
    /// finishes first; lingering is short.
    mutating func beginShutdown() {
        shuttingDown = true
    }

    /// The connection closes for `reason`; nothing is decided any more.
    mutating func close(_ reason: StreamEndReason) -> Step {
        guard phase != .closed else { return Step() }
        phase = .closed
        deadline = nil
        return Step(action: .close(reason))
    }

    /// Records the deadline of `wanted`; returns when to set the timer, if it must be set.
    private mutating func setDeadline(_ wanted: Deadline, at now: C.Instant) -> C.Instant? {
        guard wanted != deadlinePhase, phase != .closed else { return nil }
        deadlinePhase = wanted
        let timeout: Duration? =
            switch wanted {
            case .none: nil
            case .header: timeouts.header
            case .body: timeouts.body
            case .idle: timeouts.idle
            case .linger: shuttingDown ? min(timeouts.linger, timeouts.stoppingLinger) : timeouts.linger
            }
        guard let timeout else {
            deadline = nil
            return nil
        }
        let new = now.advanced(by: timeout)
        deadline = new
        if let firing = timerFiresAt, firing <= new { return nil }
        return schedule(new)
    }

    private mutating func schedule(_ instant: C.Instant) -> C.Instant {
        timerFiresAt = instant
        return instant
    }
}
