extension AdminFeedEvent {
    /// `login`: a successful login.
    public struct Login: AdminFeedPayload {
        public var userId: Int
        public var sessionId: String
        /// `player` or `generation`.
        public var api: String

        public init(userId: Int, sessionId: String, api: String) {
            self.userId = userId
            self.sessionId = sessionId
            self.api = api
        }

        public var fields: [String: JSONValue] {
            ["userId": .integer(userId), "sessionId": .string(sessionId), "api": .string(api)]
        }
    }

    /// `session.expired`: a session ended with the reason and code of its `SESSION_EXPIRATION`.
    public struct SessionExpired: AdminFeedPayload {
        public var sessionId: String
        public var userId: Int
        public var reason: String
        public var code: Int
        /// How many of its user-info connections the expiry closed.
        public var streamsEnded: Int

        public init(sessionId: String, userId: Int, reason: String, code: Int, streamsEnded: Int) {
            self.sessionId = sessionId
            self.userId = userId
            self.reason = reason
            self.code = code
            self.streamsEnded = streamsEnded
        }

        public var fields: [String: JSONValue] {
            [
                "sessionId": .string(sessionId), "userId": .integer(userId), "reason": .string(reason),
                "code": .integer(code), "streamsEnded": .integer(streamsEnded),
            ]
        }
    }

    /// `session.terminated`: a session ended with `SESSION_TERMINATED`.
    public struct SessionTerminated: AdminFeedPayload {
        public var sessionId: String
        public var userId: Int
        public var reason: String
        /// How many of its user-info connections the termination closed.
        public var streamsEnded: Int

        public init(sessionId: String, userId: Int, reason: String, streamsEnded: Int) {
            self.sessionId = sessionId
            self.userId = userId
            self.reason = reason
            self.streamsEnded = streamsEnded
        }

        public var fields: [String: JSONValue] {
            [
                "sessionId": .string(sessionId), "userId": .integer(userId), "reason": .string(reason),
                "streamsEnded": .integer(streamsEnded),
            ]
        }
    }
}
