import MockBackendAPI
import MockBackendHTTP

/// The session overlay's admin routes: list the tokens seen on proxied requests, expire
/// one (its requests answered here, its streams ended), lift an expiry.
struct AdminProxyRoutes {
    let sessions: ProxySessions

    func register(on admin: inout RouterGroup) {
        let sessions = sessions
        admin.get("/proxy/sessions") { _ in try .json(sessions.list()) }
        admin.post("/proxy/sessions/{token}/expire") { request in
            let key = request.pathParameters["token"] ?? ""
            let expiry = try RequestBody.decode(ProxySessionExpiry.self, from: request)
            try Self.validate(expiry)
            return try .json(sessions.expire(key, expiry))
        }
        admin.delete("/proxy/sessions/{token}") { request in
            let key = request.pathParameters["token"] ?? ""
            return try .json(sessions.lift(key))
        }
    }

    private static func validate(_ expiry: ProxySessionExpiry) throws {
        if let status = expiry.status, !(100...599).contains(status) || (100...199).contains(status) {
            throw ProblemDetails.badRequest("Field 'status' must be from 200 to 599.", code: "INVALID_BODY")
        }
        if let event = expiry.event?.event, event.isEmpty || event.contains(where: \.isNewline) {
            throw ProblemDetails.badRequest(
                "Field 'event.event' must be a non-empty single line.", code: "INVALID_BODY")
        }
    }
}
