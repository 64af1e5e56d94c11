import MockBackendHTTP

/// Reads the session of a player API request and answers 403 "Session expired" for anything
/// but a live session of the right user (`PlayerFailure.sessionExpired`).
struct PlayerAuthentication {
    let accounts: AccountStore

    /// From `X-SessionId` (header names are case-insensitive), for `userId` when given.
    func authenticate(_ request: HTTPRequest, userId: Int?) throws -> (PlayerSession, UserAccount) {
        try check(request.headers["X-SessionId"], userId: userId)
    }

    /// From the `sessionId` cookie, as the casino-style client sends it.
    func authenticateByCookie(_ request: HTTPRequest) throws -> (PlayerSession, UserAccount) {
        try check(Self.cookie(named: "sessionId", in: request), userId: nil)
    }

    func check(_ sessionId: String?, userId: Int?) throws -> (PlayerSession, UserAccount) {
        switch accounts.check(sessionId: sessionId, userId: userId) {
        case .valid(let session, let user): return (session, user)
        case .missing, .unknown, .ended, .otherUser: throw PlayerFailure.sessionExpired()
        }
    }

    /// The `userId` path parameter as a number.
    static func userId(of request: HTTPRequest) throws -> Int {
        guard let text = request.pathParameters["userId"], let userId = Int(text) else {
            throw PlayerFailure.badRequest("userId must be a number")
        }
        return userId
    }

    static func cookie(named name: String, in request: HTTPRequest) -> String? {
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingSpaces() == name { return String(parts[1].trimmingSpaces()) }
            }
        }
        return nil
    }
}
