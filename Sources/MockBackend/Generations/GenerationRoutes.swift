import MockBackendAPI
import MockBackendHTTP

/// The generation API (`openapi/openapi.yaml`, tag `generations`): login for a bearer token
/// (a view of the one session store), generations that spend tokens, progress by stream
/// and by polling. The token balance, the generation and its events are `MockBackendAPI`
/// types.
struct GenerationRoutes {
    let generations: GenerationService
    let player: PlayerService
    let endpoint: SSEEndpoint

    struct LoginRequest: Decodable {
        var email: String
        var password: String
    }

    struct LoginResponse: Encodable {
        struct User: Encodable {
            var id: Int
            var email: String
            var name: String
            var tokens: Int
        }

        var token: String
        var user: User
    }

    struct CreateRequest: Decodable {
        var prompt: String
    }

    func register(on router: inout Router) {
        let (generations, player, endpoint) = (generations, player, endpoint)
        let auth = BearerAuthentication(accounts: player.accounts)
        router.post("/api/auth/login") { request in
            let body = try RequestBody.decode(LoginRequest.self, from: request)
            guard let session = player.login(body.email, password: body.password, api: .generation),
                let user = player.accounts.user(session.userId)
            else {
                throw ProblemDetails(status: 401, code: "INVALID_CREDENTIALS", detail: "Wrong email or password.")
            }
            return try .json(
                LoginResponse(
                    token: session.sessionId,
                    user: .init(
                        id: user.userId, email: user.email, name: "\(user.firstName) \(user.lastName)",
                        tokens: user.tokens)))
        }
        router.get("/api/tokens/balance") { request in
            let user = try auth.authenticate(request)
            return try .json(TokenBalance(balance: user.tokens))
        }
        router.post("/api/generations") { request in
            let (user, session) = try auth.authenticateSession(request)
            let body = try RequestBody.decode(CreateRequest.self, from: request)
            guard !body.prompt.trimmingSpaces().isEmpty else {
                throw ProblemDetails.badRequest("Field 'prompt' must not be empty.", code: "INVALID_BODY")
            }
            let generation = try generations.start(prompt: body.prompt, userId: user.userId, sessionId: session)
            return try .json(GenerationCreated(id: generation.id), status: 201)
        }
        router.get("/api/generations/{id}") { request in
            let (user, session) = try auth.authenticateSession(request)
            return try .json(try Self.generation(request, generations, userId: user.userId).snapshot(for: session))
        }
        router.get("/api/generations/{id}/progress") { request in
            let (user, session) = try auth.authenticateSession(request)
            let generation = try Self.generation(request, generations, userId: user.userId)
            // The session's own audience: when it ends, so does this connection.
            return try endpoint.response(for: request, stream: generation.stream, audience: session)
        }
        GenerationImageRoute(generations: generations, accounts: player.accounts).register(on: &router)
    }

    static func generation(_ request: HTTPRequest, _ generations: GenerationService, userId: Int?) throws -> Generation
    {
        let id = request.pathParameters["id"] ?? ""
        guard let generation = generations.generation(id, userId: userId) else {
            throw ProblemDetails(status: 404, code: "GENERATION_NOT_FOUND", detail: "No generation \(id).")
        }
        return generation
    }
}

/// `Authorization: Bearer <token>`, where the token is a session of the one store: an
/// expired session fails here as it does in the player API.
struct BearerAuthentication {
    let accounts: AccountStore

    func authenticate(_ request: HTTPRequest) throws -> UserAccount {
        try authenticateSession(request).user
    }

    /// The user and the session id the token names.
    func authenticateSession(_ request: HTTPRequest) throws -> (user: UserAccount, sessionId: String) {
        let header = request.headers["Authorization"] ?? ""
        guard header.lowercased().hasPrefix("bearer "), case let token = String(header.dropFirst(7)).trimmingSpaces(),
            !token.isEmpty
        else {
            throw Self.unauthorized("UNAUTHORIZED", "Send Authorization: Bearer <token> from POST /api/auth/login.")
        }
        switch accounts.check(sessionId: String(token)) {
        case .valid(_, let user): return (user, String(token))
        case .ended: throw Self.unauthorized("SESSION_EXPIRED", "The session has ended; log in again.")
        default: throw Self.unauthorized("UNAUTHORIZED", "The token names no session.")
        }
    }

    static func unauthorized(_ code: String, _ detail: String) -> HTTPResponseError {
        var response = ProblemDetails(status: 401, code: code, detail: detail).response
        response.headers.set("WWW-Authenticate", "Bearer")
        return PreparedResponse(response: response)
    }
}

/// A response thrown as an error, for answers that need headers besides the problem.
struct PreparedResponse: HTTPResponseError {
    let response: HTTPResponse
}
