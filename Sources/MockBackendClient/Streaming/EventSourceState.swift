import ServerSentEvents

/// Why an event source stopped for good.
public enum EventSourceStopReason: Sendable, Equatable {
    /// The server answered 204 No Content: there is nothing more (WHATWG: do not reconnect).
    case noContent
    /// The server answered 401 or 403: the session is over; re-login, then start anew.
    case unauthorized(status: Int)
    /// The server answered 200 with a type other than `text/event-stream`.
    case wrongContentType(String?)
    /// The server answered a client error that retrying will not fix (404, 400, ...).
    case httpStatus(Int)
    /// Every reconnection attempt failed and no polling fallback was given.
    case retriesExhausted
    /// The polling fallback ran and returned.
    case pollingFinished
    /// The app said the stream is over (for instance on a session-expiration message).
    case sessionOver(String)
    /// The app called `stop()`, cancelled the task iterating `events`, or let go of the
    /// source.
    case stopped
    /// The server sent a line or an event larger than the configured `SSEParserLimits`.
    case streamLimitExceeded(SSEParserError)
    /// The request provider threw (a token refresh failed, say), described here;
    /// `EventSourceError.underlyingError` holds the error itself.
    case requestFailed(String)
}

/// What an event source is doing, for a UI or a log.
public enum EventSourceState: Sendable, Equatable {
    /// A connection attempt; `attempt` is 0 for the first connection, then counts retries.
    case connecting(attempt: Int)
    /// The response head arrived with status 200 and `text/event-stream`.
    case open
    /// Waiting `delay` before reconnection attempt `attempt`.
    case backingOff(delay: Duration, attempt: Int)
    /// Reconnection gave up; the caller's polling fallback is running.
    case polling
    /// Closed by `suspend()` until `resume()` or `reconnectNow()`.
    case suspended
    /// Stopped for good.
    case closed(EventSourceStopReason)
}

/// The error that ends `EventSource.events` when the stop is a failure.
public struct EventSourceError: Error, Sendable, Equatable {
    public var reason: EventSourceStopReason
    /// The error behind `reason`, when there is one: what the request provider threw.
    public var underlyingError: (any Error & Sendable)?

    public init(reason: EventSourceStopReason, underlyingError: (any Error & Sendable)? = nil) {
        self.reason = reason
        self.underlyingError = underlyingError
    }

    /// Two errors are equal when their reasons are (the underlying error is not compared).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.reason == rhs.reason
    }

    /// Whether a stop for `reason` ends `events` with this error (rather than normally).
    static func isFailure(_ reason: EventSourceStopReason) -> Bool {
        switch reason {
        case .noContent, .stopped, .pollingFinished, .sessionOver: false
        case .unauthorized, .wrongContentType, .httpStatus, .retriesExhausted, .streamLimitExceeded, .requestFailed:
            true
        }
    }
}
