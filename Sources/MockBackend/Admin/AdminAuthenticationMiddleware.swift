import MockBackendHTTP

/// Guards the admin API when `--admin-token` is set: every `/__admin` route asks for
/// `Authorization: Bearer <token>` (RFC 6750 §2.1). `GET /__admin/events` also takes
/// `?access_token=<token>` (RFC 6750 §2.3), because a browser's EventSource cannot send
/// headers. Two routes stay open: `GET /__admin/health` (a readiness probe tells nothing
/// about the mock) and `GET /__admin/tls/cert.pem` (the certificate is public: every TLS
/// handshake shows it, and a phone installing it from Safari cannot send a header). So do
/// the files of `/__admin/dashboard/` and `/__admin/openapi.yaml`, public outside proxy
/// mode anyway: the dashboard asks for the token itself, and a page load cannot send it.
///
/// Wired on the admin group, so it runs around every admin route and around the 404 and 405
/// of every other admin path (an unknown admin path is 401 before it is 404). Whether a path
/// is an admin path is `AdminAPI`'s answer, the router's own, and the open routes are told
/// apart by the path's segments as the router reads them (`PathSegments`), so neither
/// `//__admin/sessions` nor `/__admin//health/x` slips past the check.
struct AdminAuthenticationMiddleware: HTTPMiddleware {
    let token: String

    private static let openRoutes: [[Substring]] = [["__admin", "health"], ["__admin", "tls", "cert.pem"]]

    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        guard AdminAPI.contains(path: request.path) else { return try next(request) }
        let segments = Array(PathSegments(request.path))
        guard !Self.openRoutes.contains(segments), !Self.isPublicFile(segments, method: request.method) else {
            return try next(request)
        }
        var presented: [Substring] = []
        if let authorization = request.headers["Authorization"] {
            // The scheme is case-insensitive (RFC 9110 §11.1); another scheme counts as a wrong token.
            let parts = authorization.trimmingSpaces().split(separator: " ", maxSplits: 1)
            let isBearer = parts.count == 2 && parts[0].lowercased() == "bearer"
            presented.append(isBearer ? parts[1].trimmingSpaces() : "")
        }
        if segments == ["__admin", "events"], let query = request.queryValue("access_token") {
            presented.append(Substring(query))
        }
        guard !presented.isEmpty else { throw AdminUnauthorized(tokenPresented: false) }
        guard presented.contains(where: { WorkflowAuthentication.equalInConstantTime($0, token) }) else {
            throw AdminUnauthorized(tokenPresented: true)
        }
        return try next(request)
    }

    /// The dashboard's files and the OpenAPI document, read with GET or HEAD.
    private static func isPublicFile(_ segments: [Substring], method: String) -> Bool {
        guard method == "GET" || method == "HEAD", segments.count >= 2, segments[0] == "__admin" else { return false }
        return segments[1] == "dashboard" || (segments.count == 2 && segments[1] == "openapi.yaml")
    }
}

/// 401 `ADMIN_UNAUTHORIZED` with `WWW-Authenticate: Bearer` — with `error="invalid_token"`
/// when a token was presented but is wrong (RFC 6750 §3).
struct AdminUnauthorized: HTTPResponseError {
    let tokenPresented: Bool

    var response: HTTPResponse {
        let detail =
            tokenPresented
            ? "The admin token is wrong."
            : "The admin API needs the --admin-token: Authorization: Bearer <token>"
                + " (GET /__admin/events also takes ?access_token=<token>)."
        var response = ProblemDetails(status: 401, code: "ADMIN_UNAUTHORIZED", detail: detail).response
        response.headers.set(
            "WWW-Authenticate",
            tokenPresented
                ? #"Bearer realm="mockbackend admin", error="invalid_token""# : #"Bearer realm="mockbackend admin""#)
        return response
    }
}
