/// `{"reason"?, "code"?}` of `POST /__admin/sessions/{id}/expire`, `…/terminate` and
/// `POST /__admin/users/{id}/expire-sessions` (schema `SessionEndRequest`): the
/// `exitReason` and `exitReasonCode` of the `SESSION_EXPIRATION` frame, any text with any
/// integer code. The backend's own (`Expired` 1, `Logout` 2, `Kicked` 3) may be named by
/// either field alone; neither is `Expired` (1). A termination reads only `reason`.
public struct SessionEndRequest: Codable, Sendable, Equatable {
    /// One line of 1 to 200 characters.
    public var reason: String?
    public var code: Int?

    public init(reason: String? = nil, code: Int? = nil) {
        self.reason = reason
        self.code = code
    }
}

/// The answer to `POST /__admin/users/{id}/expire-sessions`.
public struct ExpiredSessions: Codable, Sendable, Equatable {
    public var userId: Int
    /// The ids of the sessions that expired.
    public var expired: [String]

    public init(userId: Int, expired: [String]) {
        self.userId = userId
        self.expired = expired
    }
}
