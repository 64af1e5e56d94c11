/// `POST /v1/player/legislation/login` request body.
public struct PlayerLoginRequest: Codable, Sendable, Equatable {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// The login response. `userId` is a JSON number here (it is a string in stream messages).
public struct PlayerLoginResponse: Codable, Sendable, Equatable {
    public var sessionId: String
    public var id: String
    public var userId: Int
    public var sessionBlockers: [String]
    public var hasToAcceptTC: Bool
    public var hasToSetPass: Bool

    public init(
        sessionId: String, id: String, userId: Int, sessionBlockers: [String] = [], hasToAcceptTC: Bool = false,
        hasToSetPass: Bool = false
    ) {
        self.sessionId = sessionId
        self.id = id
        self.userId = userId
        self.sessionBlockers = sessionBlockers
        self.hasToAcceptTC = hasToAcceptTC
        self.hasToSetPass = hasToSetPass
    }
}

/// The player API's own error body (403 for bad credentials and dead sessions alike).
public struct PlayerErrorBody: Codable, Sendable, Equatable {
    public var success: Bool
    public var errorCode: Int
    public var error: String
    public var errorSourceName: String
    public var nwaTraceId: String

    public init(errorCode: Int, error: String, nwaTraceId: String) {
        success = false
        self.errorCode = errorCode
        self.error = error
        errorSourceName = "mockbackend"
        self.nwaTraceId = nwaTraceId
    }
}
