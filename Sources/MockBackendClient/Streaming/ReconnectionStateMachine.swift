import Foundation

/// The reconnection logic of an event source, with no I/O, clock or randomness of its
/// own: it takes what happened and returns what to do. The clock and the random source are
/// injected, so tests get exact delays and decide how long a connection stayed open.
///
/// The attempt count, and with it the delay, starts again only once a connection has
/// proved itself by staying open for the policy's `backoffResetThreshold`, measured on the
/// injected clock from the response head to the connection's end. Events do not count: a
/// connection that ends sooner is a failed attempt even if it delivered some. A server (or
/// a proxy) that accepts, sends an event and closes therefore meets a growing backoff and,
/// after `maxAttempts` reconnections, the polling fallback or a stop — not a reconnection
/// loop at the initial delay.
public struct ReconnectionStateMachine: Sendable {
    /// What happened to the connection.
    public enum Input: Sendable, Equatable {
        /// The caller asked to start.
        case start
        /// A response head arrived: its status and content type.
        case response(status: Int, contentType: String?)
        /// The server sent `retry:` with this many milliseconds.
        case retryAdvertised(milliseconds: Int)
        /// The open stream delivered an event. It resets nothing: a connection proves itself
        /// only by staying open for `backoffResetThreshold`.
        case eventReceived
        /// The connection failed before or after opening (network error, reset, timeout).
        case connectionFailed
        /// The body ended cleanly after the stream was open.
        case streamEnded
        /// The backoff delay has passed.
        case delayElapsed
        /// The polling fallback returned.
        case pollingFinished
        /// The caller asked to stop.
        case stop(EventSourceStopReason)
        /// The caller asked to close the connection until `resume`.
        case suspend
        /// The caller asked to reconnect after `suspend`.
        case resume
        /// The caller asked to drop the connection, or skip the backoff, and connect at once.
        case reconnectNow
        /// What the driver was doing (connecting, reading, backing off) was cut short by
        /// `suspend`, `resume` or `reconnectNow`.
        case interrupted
    }

    /// What the driver must do next.
    public enum Action: Sendable, Equatable {
        case connect
        case wait(Duration)
        case startPolling
        case stop(EventSourceStopReason)
        /// Suspended: wait until `resume` or `reconnectNow`, with no connection.
        case waitForResume
        /// Keep reading the open stream.
        case none
    }

    public let policy: ReconnectionPolicy
    public let hasPollingFallback: Bool
    private let random: @Sendable () -> Double
    /// The time since the machine was made, on the injected clock.
    private let elapsed: @Sendable () -> Duration
    /// When the current connection opened, as `elapsed()`; nil while none is open.
    var openedAt: Duration?
    /// Reconnection attempts since the start, or since the last connection that stayed open
    /// for `backoffResetThreshold` (or the app's `resume`/`reconnectNow`).
    public internal(set) var attempt = 0
    /// The server's last `retry:`, held to the policy's `maxServerRetry`.
    public private(set) var serverRetry: Duration?
    public internal(set) var state: EventSourceState = .closed(.stopped)
    private(set) var started = false

    /// - Parameters:
    ///   - clock: tells how long a connection stayed open.
    ///   - random: the jitter source, returning values in 0..<1.
    public init(
        policy: ReconnectionPolicy, hasPollingFallback: Bool, clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double
    ) {
        self.policy = policy
        self.hasPollingFallback = hasPollingFallback
        self.random = random
        self.elapsed = Self.stopwatch(clock)
    }

    private static func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    public var isStopped: Bool {
        if case .closed = state { return started }
        return false
    }

    public mutating func handle(_ input: Input) -> Action {
        if isStopped { return .none }
        if state == .suspended, Self.comesFromTheConnection(input) { return .waitForResume }
        switch input {
        case .start:
            guard !started else { return .none }
            started = true
            state = .connecting(attempt: 0)
            return .connect
        case .response(let status, let contentType):
            return handleResponse(status: status, contentType: contentType)
        case .retryAdvertised(let milliseconds):
            serverRetry = policy.serverRetry(milliseconds: milliseconds)
            return .none
        case .eventReceived:
            return .none
        case .connectionFailed, .streamEnded:
            // The only reset: what a connection delivered proves nothing until it has lasted.
            if let openedAt, elapsed() - openedAt >= policy.backoffResetThreshold { attempt = 0 }
            return scheduleReconnect()
        case .delayElapsed:
            guard case .backingOff(_, let attempt) = state else { return .none }
            state = .connecting(attempt: attempt)
            return .connect
        case .pollingFinished:
            return stop(.pollingFinished)
        case .stop(let reason):
            return stop(reason)
        case .suspend, .resume, .reconnectNow, .interrupted:
            return handleLifecycle(input)
        }
    }

    private mutating func handleResponse(status: Int, contentType: String?) -> Action {
        switch status {
        case 200:
            let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard mediaType == "text/event-stream" else { return stop(.wrongContentType(contentType)) }
            openedAt = elapsed()
            state = .open
            return .none
        case 204:
            return stop(.noContent)
        case 401, 403:
            return stop(.unauthorized(status: status))
        case 408, 425, 429, 500...599:
            return scheduleReconnect()
        default:
            return stop(.httpStatus(status))
        }
    }

    private mutating func scheduleReconnect() -> Action {
        openedAt = nil
        if attempt < Int.max { attempt += 1 }
        guard attempt <= policy.maxAttempts else {
            if hasPollingFallback {
                state = .polling
                return .startPolling
            }
            return stop(.retriesExhausted)
        }
        let delay = policy.delay(attempt: attempt, serverRetry: serverRetry, random: random())
        state = .backingOff(delay: delay, attempt: attempt)
        return .wait(delay)
    }

    mutating func stop(_ reason: EventSourceStopReason) -> Action {
        openedAt = nil
        state = .closed(reason)
        return .stop(reason)
    }
}
