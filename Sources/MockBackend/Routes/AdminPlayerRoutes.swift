import MockBackendAPI
import MockBackendHTTP

/// Session and user admin: the one-switch expiry, termination, balance postings, new users.
struct AdminPlayerRoutes {
    let player: PlayerService

    struct EndRequest: Decodable {
        var reason: String?
        var code: Int?
    }

    struct SessionEnded: Encodable {
        var sessionId: String
        var userId: Int
        var state: String
        var reason: String?
        var code: Int?
        var streamsEnded: Int
    }

    struct BalanceRequest: Decodable {
        var amount: Double
        var wallet: String?
        var productType: String?
        var operationType: Int?
    }

    struct BalancePosted: Encodable {
        var posting: BalanceUpdateBody
        var balance: PlayerBalanceResponse
    }

    func register(on admin: inout RouterGroup) {
        let player = player
        admin.get("/users") { _ in try .json(player.accounts.users) }
        admin.get("/sessions") { _ in try .json(player.accounts.sessions.map(SessionSnapshot.init)) }
        admin.post("/users") { request in
            try .json(try Self.create(request, player), status: 201)
        }
        admin.post("/sessions/{sessionId}/expire") { request in
            let sessionId = request.pathParameters["sessionId"] ?? ""
            let reason = try Self.reason(RequestBody.decode(EndRequest.self, from: request))
            let ended = try Self.require(player.expire(sessionId, reason: reason), sessionId, player)
            return try .json(
                SessionEnded(
                    sessionId: sessionId, userId: ended.session.userId, state: ended.session.state.name,
                    reason: reason.rawValue, code: reason.code, streamsEnded: ended.streams))
        }
        admin.post("/sessions/{sessionId}/terminate") { request in
            let sessionId = request.pathParameters["sessionId"] ?? ""
            let body = try RequestBody.decode(EndRequest.self, from: request)
            let ended = try Self.require(
                player.terminate(sessionId, reason: body.reason ?? "Logged out elsewhere"), sessionId, player)
            return try .json(
                SessionEnded(
                    sessionId: sessionId, userId: ended.session.userId, state: ended.session.state.name,
                    reason: body.reason ?? "Logged out elsewhere", code: nil, streamsEnded: ended.streams))
        }
        admin.post("/users/{userId}/expire-sessions") { request in
            let userId = try Self.userId(request, player)
            let reason = try Self.reason(RequestBody.decode(EndRequest.self, from: request))
            let expired = player.expireAll(of: userId, reason: reason)
            return try .json([
                "userId": .integer(userId), "expired": JSONValue.array(expired.map { .string($0.sessionId) }),
            ])
        }
        admin.post("/users/{userId}/balance") { request in
            let userId = try Self.userId(request, player)
            let body = try RequestBody.decode(BalanceRequest.self, from: request)
            let wallet = body.wallet ?? "Real"
            guard wallet == "Real" || wallet == "Bonus" else {
                throw ProblemDetails.badRequest("Field 'wallet' must be Real or Bonus.", code: "INVALID_BODY")
            }
            if let operation = body.operationType, !(0...3).contains(operation) {
                throw ProblemDetails.badRequest(
                    "Field 'operationType' must be 0 (debit), 1 (credit), 2 (reserve) or 3 (release).",
                    code: "INVALID_BODY")
            }
            guard body.amount.isFinite, body.amount != 0, abs(body.amount) <= Money.limit else {
                throw ProblemDetails.badRequest(
                    "Field 'amount' must be a non-zero number from -1e12 to 1e12.", code: "INVALID_BODY")
            }
            let posting = try player.post(
                amount: body.amount, to: userId, wallet: wallet, productType: body.productType ?? "Casino",
                operationType: body.operationType)
            let user = try Self.user(userId, player)
            return try .json(
                BalancePosted(
                    posting: posting,
                    balance: PlayerBalanceResponse(
                        currency: user.currency, real: user.realBalance, bonus: user.bonusBalance)))
        }
    }

    /// `{"reason"}` or `{"code"}` or both, which must agree; default Expired (1).
    static func reason(_ body: EndRequest) throws -> SessionExitReason {
        let byName = try body.reason.map { name -> SessionExitReason in
            guard let reason = SessionExitReason(rawValue: name) else {
                throw ProblemDetails.badRequest(
                    "Field 'reason' must be Expired, Logout or Kicked.", code: "INVALID_BODY")
            }
            return reason
        }
        let byCode = try body.code.map { code -> SessionExitReason in
            guard let reason = SessionExitReason(code: code) else {
                throw ProblemDetails.badRequest("Field 'code' must be 1, 2 or 3.", code: "INVALID_BODY")
            }
            return reason
        }
        if let byName, let byCode, byName != byCode {
            throw ProblemDetails.badRequest(
                "Fields 'reason' and 'code' disagree: \(byName.rawValue) is \(byName.code).", code: "INVALID_BODY")
        }
        return byName ?? byCode ?? .expired
    }

    private static func require(
        _ ended: (session: PlayerSession, streams: Int)?, _ sessionId: String, _ player: PlayerService
    ) throws -> (session: PlayerSession, streams: Int) {
        if let ended { return ended }
        guard let session = player.accounts.session(sessionId) else {
            throw ProblemDetails(status: 404, code: "SESSION_NOT_FOUND", detail: "No session \(sessionId).")
        }
        throw ProblemDetails(
            status: 409, code: "SESSION_ALREADY_ENDED", detail: "Session \(sessionId) is already \(session.state.name)."
        )
    }

    private static func userId(_ request: HTTPRequest, _ player: PlayerService) throws -> Int {
        guard let userId = request.pathParameters["userId"].flatMap({ Int($0) }) else {
            throw ProblemDetails.badRequest("userId must be a number.", code: "INVALID_USER_ID")
        }
        _ = try user(userId, player)
        return userId
    }

    private static func user(_ userId: Int, _ player: PlayerService) throws -> UserAccount {
        guard let user = player.accounts.user(userId) else {
            throw ProblemDetails(status: 404, code: "USER_NOT_FOUND", detail: "No user \(userId).")
        }
        return user
    }

    private static func create(_ request: HTTPRequest, _ player: PlayerService) throws -> UserAccount {
        let spec = try RequestBody.decode(UserSpec.self, from: request)
        if let problem = spec.problem {
            throw ProblemDetails.badRequest("Field '\(problem.field)' \(problem.reason).", code: "INVALID_BODY")
        }
        guard let added = player.accounts.add(spec.account(defaultUserId: player.accounts.nextUserId)) else {
            throw ProblemDetails(
                status: 409, code: "USER_EXISTS", detail: "A user with that id, username or email exists.")
        }
        return added
    }
}

/// A session as the admin API shows it.
struct SessionSnapshot: Encodable {
    var sessionId: String
    var id: String
    var userId: Int
    var loginTime: String
    var state: String
    var reason: String?

    init(_ session: PlayerSession) {
        sessionId = session.sessionId
        id = session.id
        userId = session.userId
        loginTime = session.loginTime
        state = session.state.name
        if case .expired(let reason) = session.state { self.reason = reason.rawValue }
    }
}
