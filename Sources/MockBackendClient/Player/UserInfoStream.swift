import Foundation
import MockBackendAPI

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
///
/// Lifetime: cancelling the task that iterates `messages` stops the stream (the connection
/// closes and nothing reconnects), and so does letting go of the stream, so keep a
/// reference to it for as long as it should run (a screen's model, say). The connection
/// runs on a task that does not hold the stream.
public final class UserInfoStream: Sendable {
    public let baseURL: URL
    public let userId: Int
    public let configuration: UserInfoStreamConfiguration
    /// The messages, in order, across reconnections, suspensions and re-logins. One
    /// consumer: cancelling its task stops the stream.
    public let messages: AsyncThrowingStream<UserInfoMessage, any Error>
    /// Stops the driver when the consumer of `messages` leaves or the stream is released.
    private let lifetime: StreamLifetime<UserInfoStreamDriver>
    private var driver: UserInfoStreamDriver { lifetime.work }

    public init(baseURL: URL, userId: Int, sessionId: String, configuration: UserInfoStreamConfiguration) {
        self.baseURL = baseURL
        self.userId = userId
        self.configuration = configuration
        let (messages, sink) = AsyncThrowingStream.makeStream(of: UserInfoMessage.self)
        self.messages = messages
        let driver = UserInfoStreamDriver(
            baseURL: baseURL, userId: userId, sessionId: sessionId, configuration: configuration, sink: sink)
        lifetime = StreamLifetime(of: driver, feeding: sink) { $0.stop() }
    }

    /// A stream with the default configuration but for these values.
    public convenience init(
        baseURL: URL, userId: Int, sessionId: String,
        policy: ReconnectionPolicy = ReconnectionPolicy(backoffResetThreshold: .seconds(30)),
        clientId: String? = nil
    ) {
        self.init(
            baseURL: baseURL, userId: userId, sessionId: sessionId,
            configuration: UserInfoStreamConfiguration(policy: policy, clientId: clientId))
    }

    /// Connects; does nothing if already started.
    public func start() { driver.start() }

    /// Stops for good; `messages` ends.
    public func stop() { driver.stop() }

    /// Closes the connection and keeps it closed until `resume()`: for an app going to the
    /// background. Messages already received are still delivered.
    public func suspend() { driver.suspend() }

    /// Reconnects after `suspend()`, sending the last event id seen, so what happened while
    /// suspended is replayed.
    public func resume() { driver.resume() }

    /// Drops the connection and opens a new one at once from the last event id, with no
    /// backoff and the attempts counted afresh; resumes a suspended stream.
    public func reconnectNow() { driver.reconnectNow() }

    /// True between `suspend()` and `resume()`.
    public var isSuspended: Bool { driver.state.withLock { $0.phase == .suspended } }

    /// The last event id received: what the next connection sends as `Last-Event-ID`.
    public var lastEventID: String { driver.state.withLock { $0.lastEventID } }

    /// The session the stream connects with; a new one after a re-login.
    public var sessionId: String { driver.state.withLock { $0.sessionId } }

    /// The event source of the current session; nil before `start()`.
    public var source: EventSource? { driver.state.withLock { $0.source } }

    /// The `SESSION_EXPIRATION` that ended the stream, if one did.
    public var exitReason: SessionExpirationBody? { driver.state.withLock { $0.exit } }
}
