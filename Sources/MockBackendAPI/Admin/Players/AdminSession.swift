/// A session as `GET /__admin/sessions` shows it (schema `Session`).
public struct AdminSession: Codable, Sendable, Equatable {
    public var sessionId: String
    /// The second identifier of the login response.
    public var id: String
    public var userId: Int
    public var loginTime: String
    /// `active`, `expired`, `terminated` or `logged_out`.
    public var state: String
    /// Why an expired session ended, and the code.
    public var reason: String?
    public var code: Int?

    public init(
        sessionId: String, id: String, userId: Int, loginTime: String, state: String, reason: String? = nil,
        code: Int? = nil
    ) {
        self.sessionId = sessionId
        self.id = id
        self.userId = userId
        self.loginTime = loginTime
        self.state = state
        self.reason = reason
        self.code = code
    }
}

/// The answer to `POST /__admin/sessions/{id}/expire` and `…/terminate` (schema
/// `SessionEnded`).
public struct SessionEnding: Codable, Sendable, Equatable {
    public var sessionId: String
    public var userId: Int
    /// The session's state now: `expired`, `terminated` or `logged_out`.
    public var state: String
    public var reason: String?
    /// The `exitReasonCode` of an expiry; nil for a termination.
    public var code: Int?
    /// How many open user-info connections the ending closed.
    public var streamsEnded: Int

    public init(sessionId: String, userId: Int, state: String, reason: String?, code: Int?, streamsEnded: Int) {
        self.sessionId = sessionId
        self.userId = userId
        self.state = state
        self.reason = reason
        self.code = code
        self.streamsEnded = streamsEnded
    }
}
