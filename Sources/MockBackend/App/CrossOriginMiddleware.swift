import MockBackendHTTP

/// What browsers may do with the server, around every request (README, "Browsers and
/// CORS"):
/// - a `Host` the server does not answer to is refused, 421 `HOST_NOT_ALLOWED`
///   (`HostPolicy`: the defence against DNS rebinding);
/// - the admin API is not a web API for other origins: a request to `/__admin` with an
///   `Origin` that is neither the server's own nor one `--cors` names is refused, 403
///   `CROSS_ORIGIN_ADMIN`, before anything else looks at it;
/// - every other route answers CORS as `--cors` says (`CORSPolicy`): preflights are
///   answered here, and every answer — a route's, a stub's, a fault's, an error — carries
///   the headers that let the calling page read it. A named origin gets the same on the
///   admin API.
struct CrossOriginMiddleware: HTTPMiddleware {
    let cors: CORSPolicy
    let hosts: HostPolicy

    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        let host = request.headers["Host"]
        guard hosts.allows(hostHeader: host) else {
            throw ProblemDetails(
                status: 421, code: "HOST_NOT_ALLOWED",
                detail:
                    "This server does not answer to the host \(host ?? ""): start it with --allowed-hosts naming it."
            )
        }
        let origin = request.headers["Origin"]
        let admin = AdminAPI.contains(path: request.path)
        if admin, let origin, !HostPolicy.isSameOrigin(origin, hostHeader: host), !cors.names(origin) {
            throw ProblemDetails(
                status: 403, code: "CROSS_ORIGIN_ADMIN",
                detail:
                    "The admin API does not answer pages of other origins (\(origin)); name the origin in --cors to allow it."
            )
        }
        // On the admin API only an origin named in --cors gets CORS headers, never `any`.
        let policy = admin ? CORSPolicy(mode: origin.map { cors.names($0) ? .origins([$0]) : .off } ?? .off) : cors
        if let preflight = policy.preflightResponse(to: request) { return preflight }
        var response: HTTPResponse
        do {
            response = try next(request)
        } catch let error as any HTTPResponseError {
            response = error.response
        }
        policy.decorate(&response, for: request)
        return response
    }
}
