import Foundation
import MockBackendAPI
import MockBackendSupport
import ServerSentEvents

/// The user-info stream of a logged-in player, as typed messages: balance updates once per
/// posting, session expiration and termination, unknown and undecodable frames kept.
///
/// It reconnects with Last-Event-ID when the server closes an idle stream, and stops for
/// good on `SESSION_EXPIRATION` or `SESSION_TERMINATED` — decided in the read loop as the
/// frame arrives, before any reconnection could be scheduled, and by the frame's `type`
/// even when its body does not decode. A 403 ends it or renews the session once, as
/// `UserInfoStreamConfiguration.onForbidden` says.
///
/// For an app going to the background and back: `suspend()` closes the connection,
/// `resume()` reopens it from the last event id, and `reconnectNow()` does both at once
/// (a network change, say) without waiting for a backoff — each passed on to the
/// `EventSource` of the current session, whose own these are.
public final class UserInfoStream: Sendable {
    /// Where the stream is in its life.
    enum Phase: Sendable, Equatable {
        /// Made, not started.
        case idle
        /// Connected, or reconnecting.
        case running
        /// Closed by `suspend()` until `resume()` or `reconnectNow()`.
        case suspended
        /// Over: `stop()`, a terminal message, or an error.
        case stopped
    }

    struct State: Sendable {
        var phase = Phase.idle
        var sessionId: String
        var lastEventID: String
        var exit: SessionExpirationBody?
        /// The event source of the current session.
        var source: EventSource?
    }

    public let baseURL: URL
    public let userId: Int
    public let configuration: UserInfoStreamConfiguration
    /// The messages, in order, across reconnections, suspensions and re-logins.
    public let messages: AsyncThrowingStream<UserInfoMessage, any Error>
    let sink: AsyncThrowingStream<UserInfoMessage, any Error>.Continuation
    let state: LockedValue<State>

    public init(baseURL: URL, userId: Int, sessionId: String, configuration: UserInfoStreamConfiguration) {
        self.baseURL = baseURL
        self.userId = userId
        self.configuration = configuration
        (messages, sink) = AsyncThrowingStream.makeStream(of: UserInfoMessage.self)
        state = LockedValue(State(sessionId: sessionId, lastEventID: configuration.lastEventID ?? ""))
    }

    /// A stream with the default configuration but for these values.
    public convenience init(
        baseURL: URL, userId: Int, sessionId: String, policy: ReconnectionPolicy = ReconnectionPolicy(),
        clientId: String? = nil
    ) {
        self.init(
            baseURL: baseURL, userId: userId, sessionId: sessionId,
            configuration: UserInfoStreamConfiguration(policy: policy, clientId: clientId))
    }

    /// Connects; does nothing if already started.
    public func start() {
        let first = state.withLock { state in
            guard state.phase == .idle else { return false }
            state.phase = .running
            return true
        }
        if first { Task { await run() } }
    }

    /// Stops for good; `messages` ends.
    public func stop() {
        let (source, neverStarted) = state.withLock { state in
            defer { state.phase = .stopped }
            return (state.source, state.phase == .idle)
        }
        source?.stop()
        if neverStarted { sink.finish() }
    }

    /// Closes the connection and keeps it closed until `resume()`: for an app going to the
    /// background. Messages already received are still delivered.
    public func suspend() {
        let source = state.withLock { state -> EventSource? in
            guard state.phase == .running else { return nil }
            state.phase = .suspended
            return state.source
        }
        source?.suspend()
    }

    /// Reconnects after `suspend()`, sending the last event id seen, so what happened while
    /// suspended is replayed.
    public func resume() {
        let source = state.withLock { state -> EventSource? in
            guard state.phase == .suspended else { return nil }
            state.phase = .running
            return state.source
        }
        source?.resume()
    }

    /// Drops the connection and opens a new one at once from the last event id, with no
    /// backoff and the attempts counted afresh; resumes a suspended stream.
    public func reconnectNow() {
        let source = state.withLock { state -> EventSource? in
            guard state.phase == .running || state.phase == .suspended else { return nil }
            state.phase = .running
            return state.source
        }
        source?.reconnectNow()
    }

    /// True between `suspend()` and `resume()`.
    public var isSuspended: Bool { state.withLock { $0.phase == .suspended } }

    /// The last event id received: what the next connection sends as `Last-Event-ID`.
    public var lastEventID: String { state.withLock { $0.lastEventID } }

    /// The session the stream connects with; a new one after a re-login.
    public var sessionId: String { state.withLock { $0.sessionId } }

    /// The event source of the current session; nil before `start()`.
    public var source: EventSource? { state.withLock { $0.source } }

    /// The `SESSION_EXPIRATION` that ended the stream, if one did.
    public var exitReason: SessionExpirationBody? { state.withLock { $0.exit } }
}
