/// The envelope of every user-info stream frame: `{"type","body"}`. The frames have no
/// `event:` field (EventSource dispatches them as `message`); `type` says what they hold.
public struct UserInfoEnvelope<Body: Codable & Sendable>: WireEvent, Codable, Sendable {
    /// User-info frames carry no `event:` field.
    public static var eventType: String? { nil }

    /// One of `UserInfoMessageType`.
    public var type: String
    /// The message, typed by `type`.
    public var body: Body

    public init(type: String, body: Body) {
        self.type = type
        self.body = body
    }
}

extension UserInfoEnvelope: Equatable where Body: Equatable {}

/// The message types of the user-info stream.
public enum UserInfoMessageType {
    public static let balanceUpdate = "BALANCE_UPDATE"
    public static let balanceUpdateV2 = "BALANCE_UPDATE_V2"
    public static let sessionExpiration = "SESSION_EXPIRATION"
    public static let sessionTerminated = "SESSION_TERMINATED"
}

/// `BALANCE_UPDATE` and `BALANCE_UPDATE_V2` share this body and, for one posting, its
/// `postingId`. `userId` is a string here.
public struct BalanceUpdateBody: Codable, Sendable, Equatable {
    public struct Change: Codable, Sendable, Equatable {
        public var affectedAmount: Double
        public var afterAmount: Double
        public var affectedAmountCurrency: String
        public var afterAmountCurrency: String
        public var productType: String
        public var walletAccountType: String

        public init(affectedAmount: Double, afterAmount: Double, currency: String, productType: String) {
            self.affectedAmount = affectedAmount
            self.afterAmount = afterAmount
            affectedAmountCurrency = currency
            afterAmountCurrency = currency
            self.productType = productType
            walletAccountType = "Ordinary"
        }
    }

    public var userId: String
    public var domainId: Int
    public var streamingDate: String
    public var source: String
    public var currency: String
    /// 0 debit, 1 credit, 2 reserve, 3 release.
    public var operationType: Int
    public var postingId: String
    /// `Real`, and `Bonus` only when the bonus wallet changed.
    public var balanceChange: [String: Change]

    public init(
        userId: String, domainId: Int, streamingDate: String, source: String, currency: String, operationType: Int,
        postingId: String, balanceChange: [String: Change]
    ) {
        self.userId = userId
        self.domainId = domainId
        self.streamingDate = streamingDate
        self.source = source
        self.currency = currency
        self.operationType = operationType
        self.postingId = postingId
        self.balanceChange = balanceChange
    }
}

/// `SESSION_EXPIRATION`: the server ends the stream after it.
public struct SessionExpirationBody: Codable, Sendable, Equatable {
    public var userId: String
    public var sessionId: String
    /// `Expired` (1), `Logout` (2) or `Kicked` (3).
    public var exitReason: String
    public var exitReasonCode: Int
    public var loginTime: String?
    public var logoutTime: String?
    public var sourceName: String

    public init(userId: String, sessionId: String, exitReason: String, exitReasonCode: Int) {
        self.userId = userId
        self.sessionId = sessionId
        self.exitReason = exitReason
        self.exitReasonCode = exitReasonCode
        loginTime = nil
        logoutTime = nil
        sourceName = "NWA"
    }

    /// `loginTime` and `logoutTime` are sent as explicit nulls, as the real backend does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userId, forKey: .userId)
        try container.encode(sessionId, forKey: .sessionId)
        try container.encode(exitReason, forKey: .exitReason)
        try container.encode(exitReasonCode, forKey: .exitReasonCode)
        try container.encode(loginTime, forKey: .loginTime)
        try container.encode(logoutTime, forKey: .logoutTime)
        try container.encode(sourceName, forKey: .sourceName)
    }
}

/// `SESSION_TERMINATED`: the session was logged out elsewhere.
public struct SessionTerminatedBody: Codable, Sendable, Equatable {
    public var userId: String
    public var sessionId: String
    public var reason: String

    public init(userId: String, sessionId: String, reason: String) {
        self.userId = userId
        self.sessionId = sessionId
        self.reason = reason
    }
}

/// Why a session ended, as `SESSION_EXPIRATION` tells it: `exitReason` and
/// `exitReasonCode`. The backend's own are `Expired` (1), `Logout` (2) and `Kicked` (3);
/// any text with any code can be sent, for a client that must cope with one it does not know.
public struct SessionExitReason: Codable, Sendable, Hashable, CustomStringConvertible {
    /// `exitReason`.
    public var reason: String
    /// `exitReasonCode`.
    public var code: Int

    public init(reason: String, code: Int) {
        self.reason = reason
        self.code = code
    }

    /// The session's time ran out.
    public static let expired = SessionExitReason(reason: "Expired", code: 1)
    /// The player logged out.
    public static let logout = SessionExitReason(reason: "Logout", code: 2)
    /// The operator ended the session.
    public static let kicked = SessionExitReason(reason: "Kicked", code: 3)
    /// The reasons the backend itself sends.
    public static let known = [expired, logout, kicked]

    public var description: String { "\(reason) (\(code))" }
}
