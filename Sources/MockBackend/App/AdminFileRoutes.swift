import MockBackendHTTP

/// The dashboard and the OpenAPI document under the admin prefix — `/__admin/dashboard/`
/// and `/__admin/openapi.yaml` — where they stay reachable when every other path goes to a
/// team's own backend (proxy mode).
struct AdminFileRoutes {
    let staticFiles: StaticFiles
    let openAPI: OpenAPIRoutes

    func register(on admin: inout RouterGroup) {
        let staticFiles = staticFiles
        let prefix = "\(AdminAPI.prefix)/dashboard"
        admin.get("/dashboard") { request in
            // The dashboard's own links are relative: its page needs the trailing slash.
            guard request.path.hasSuffix("/") else {
                return HTTPResponse(status: 308, headers: ["Location": prefix + "/"])
            }
            return try Self.file(request, below: prefix, in: staticFiles)
        }
        admin.get("/dashboard/{file...}") { request in try Self.file(request, below: prefix, in: staticFiles) }
        admin.get("/openapi.yaml") { _ in try openAPI.document() }
    }

    /// The static file at `request`'s path with `prefix` taken off.
    private static func file(_ request: HTTPRequest, below prefix: String, in files: StaticFiles) throws
        -> HTTPResponse
    {
        var inner = request
        inner.target = String(request.target.dropFirst(prefix.count))
        inner.path = String(request.path.dropFirst(prefix.count))
        if let response = try files.respond(to: inner) { return response }
        throw ProblemDetails.notFound("No dashboard file at \(request.path).")
    }
}
