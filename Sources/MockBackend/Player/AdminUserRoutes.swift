import MockBackendAPI
import MockBackendHTTP

/// User admin: the list, new users, changes (stale credentials on demand), removal,
/// balance postings, and the expiry of all of a user's sessions.
struct AdminUserRoutes {
    let player: PlayerService

    func register(on admin: inout RouterGroup) {
        let player = player
        admin.get("/users") { _ in try .json(player.accounts.users) }
        admin.post("/users") { request in
            try .json(try Self.create(request, player), status: 201)
        }
        admin.add("PATCH", "/users/{userId}") { request in
            let userId = try Self.userId(request, player)
            let patch = try UserChanges.decode(from: request)
            return try .json(try patch.apply(to: userId, in: player.accounts))
        }
        admin.delete("/users/{userId}") { request in
            let userId = try Self.userId(request, player)
            guard let ended = player.deleteUser(userId) else { throw Self.noUser(userId) }
            return try .json(UserRemoval(userId: userId, sessionsEnded: ended.map(\.sessionId)))
        }
        admin.post("/users/{userId}/expire-sessions") { request in
            let userId = try Self.userId(request, player)
            let reason = try AdminSessionRoutes.reason(RequestBody.decode(SessionEndRequest.self, from: request))
            let expired = player.expireAll(of: userId, reason: reason)
            return try .json(ExpiredSessions(userId: userId, expired: expired.map(\.sessionId)))
        }
        admin.post("/users/{userId}/balance") { request in
            let userId = try Self.userId(request, player)
            let body = try RequestBody.decode(BalancePostingRequest.self, from: request)
            let wallet = body.wallet ?? Wallet.real.rawValue
            guard Wallet(rawValue: wallet) != nil else {
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
            guard let user = player.accounts.user(userId) else { throw Self.noUser(userId) }
            return try .json(
                BalancePosting(
                    posting: posting,
                    balance: PlayerBalanceResponse(
                        currency: user.currency, real: user.realBalance, bonus: user.bonusBalance)))
        }
    }

    /// The `userId` path parameter of an existing user.
    private static func userId(_ request: HTTPRequest, _ player: PlayerService) throws -> Int {
        guard let userId = request.pathParameters["userId"].flatMap({ Int($0) }) else {
            throw ProblemDetails.badRequest("userId must be a number.", code: "INVALID_USER_ID")
        }
        guard player.accounts.user(userId) != nil else { throw noUser(userId) }
        return userId
    }

    static func noUser(_ userId: Int) -> ProblemDetails {
        ProblemDetails(status: 404, code: "USER_NOT_FOUND", detail: "No user \(userId).")
    }

    private static func create(_ request: HTTPRequest, _ player: PlayerService) throws -> UserAccount {
        let spec = try RequestBody.decode(NewUser.self, from: request)
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
