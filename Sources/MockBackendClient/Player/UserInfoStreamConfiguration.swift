/// What a `UserInfoStream` does when a connection answers 403 (an expired, terminated or
/// unknown session: this backend answers 403 for all of them).
public enum UserInfoForbiddenPolicy: Sendable {
    /// The stream ends: `messages` throws `EventSourceError` with `.unauthorized(status: 403)`.
    case endSession
    /// The session is renewed once through the authenticator (joining a renewal another
    /// caller already started) and the stream reconnects with the new session from the
    /// last event id. A 403 again before any message arrives ends the stream with
    /// `EventSourceError`; a failed login ends it with the login's error (stored
    /// credentials gone stale: `AuthenticationError.invalidCredentials`), never a loop.
    case reloginOnce(PlayerAuthenticator)
}

/// Everything a `UserInfoStream` can be told before it starts.
public struct UserInfoStreamConfiguration: Sendable {
    /// Backoff between reconnections. The server closes a quiet stream after 60 s without
    /// an event, so the default counts a connection that stayed open 30 s as a good one
    /// (`backoffResetThreshold`): a stream closed as idle starts the backoff again, as it
    /// should, however the close and the reconnection fall around the 60 s mark.
    public var policy: ReconnectionPolicy
    /// Sent as `X-Client-Id`, so the server's stream journal ties reconnections together.
    public var clientId: String?
    /// The Last-Event-ID of the first connection, to resume a stream read earlier; nil
    /// for only what happens from now on.
    public var lastEventID: String?
    /// Longest silence before the client counts the connection as failed and reconnects.
    /// The stream sends no heartbeat; default 90 s, past the server's 60 s idle close.
    public var idleTimeout: Duration
    /// What a 403 does. Default `.endSession`.
    public var onForbidden: UserInfoForbiddenPolicy

    public init(
        policy: ReconnectionPolicy = ReconnectionPolicy(backoffResetThreshold: .seconds(30)), clientId: String? = nil,
        lastEventID: String? = nil,
        idleTimeout: Duration = .seconds(90), onForbidden: UserInfoForbiddenPolicy = .endSession
    ) {
        self.policy = policy
        self.clientId = clientId
        self.lastEventID = lastEventID
        self.idleTimeout = idleTimeout
        self.onForbidden = onForbidden
    }
}
