import MockBackendHTTP

/// The stub admin API, shaped like WireMock's: `POST`, `GET` and `DELETE /__admin/mappings`,
/// `GET`, `PUT` and `DELETE /__admin/mappings/{id}`, `POST /__admin/mappings/reset` (back to
/// the `--mappings` files) and `POST /__admin/mappings/import` (`{"mappings": [...]}`).
///
/// A mapping added here that proxies (`proxyBaseUrl`) to a host not allowed already (the
/// `--proxy` host, `--proxy-allow`, the hosts of the mapping files) is refused with 400
/// `PROXY_HOST_NOT_ALLOWED`: a proxy is an open door.
struct AdminMappingRoutes {
    let stubs: StubStore
    /// Whether upstream requests may go to a host.
    let allowsProxyHost: @Sendable (String) -> Bool

    func register(on admin: inout RouterGroup) {
        let stubs = stubs
        let checkHosts: @Sendable ([StubMapping]) throws -> Void = { [allowsProxyHost] mappings in
            for mapping in mappings {
                guard let host = mapping.proxyHost, !allowsProxyHost(host) else { continue }
                throw ProblemDetails.badRequest(
                    "The mapping proxies to \(host), which is not an allowed upstream host; start the server with --proxy-allow \(host) to allow it.",
                    code: "PROXY_HOST_NOT_ALLOWED")
            }
        }
        admin.post("/mappings") { request in
            try RequestBody.checkContentType(of: request)
            let mapping = try StubMapping.parse(body: request.body, options: stubs.parseOptions, newID: stubs.newID)
            try checkHosts([mapping])
            stubs.add(mapping)
            var response = try HTTPResponse.json(mapping.json, status: 201)
            response.headers.set("Location", "/__admin/mappings/\(mapping.id)")
            return response
        }
        admin.get("/mappings") { request in
            let (offset, limit) = try Self.page(of: request)
            let all = stubs.all
            return try Self.list(Array(all.dropFirst(offset).prefix(limit)), total: all.count)
        }
        admin.delete("/mappings") { _ in try .json(["deleted": stubs.removeAll()]) }
        admin.post("/mappings/reset") { _ in
            stubs.reset()
            let all = stubs.all
            return try Self.list(all, total: all.count)
        }
        admin.post("/mappings/import") { request in
            // All or nothing: nothing is added unless every mapping is valid.
            try RequestBody.checkContentType(of: request)
            let mappings = try MappingFiles.parse(request.body, options: stubs.parseOptions, newID: stubs.newID)
            try checkHosts(mappings)
            stubs.add(mappings)
            return try Self.list(mappings, total: mappings.count)
        }
        admin.get("/mappings/{id}") { request in
            try .json(try Self.existing(request, in: stubs).json)
        }
        admin.put("/mappings/{id}") { request in
            let id = try Self.existing(request, in: stubs).id
            // The path names the mapping, as in WireMock; an id in the body is only checked.
            try RequestBody.checkContentType(of: request)
            let mapping = try StubMapping.parse(
                body: request.body, fixedID: id, options: stubs.parseOptions, newID: { id })
            try checkHosts([mapping])
            guard stubs.update(mapping) else { throw Self.notFound(id) }
            return try .json(mapping.json)
        }
        admin.delete("/mappings/{id}") { request in
            let id = request.pathParameters["id"] ?? ""
            guard stubs.remove(id: id) else { throw Self.notFound(id) }
            return try .json(["deleted": 1])
        }
    }

    /// WireMock's list shape: `{"mappings": [...], "meta": {"total": N}}`.
    static func list(_ mappings: [StubMapping], total: Int) throws -> HTTPResponse {
        try .json(
            JSONValue.object(["mappings": .array(mappings.map(\.json)), "meta": .object(["total": .integer(total)])]))
    }

    /// `?offset=&limit=`, as WireMock pages the list.
    static func page(of request: HTTPRequest) throws -> (offset: Int, limit: Int) {
        func number(_ name: String) throws -> Int? {
            guard let text = request.queryValue(name) else { return nil }
            guard let value = Int(text), value >= 0 else {
                throw ProblemDetails.badRequest("\(name) must be a whole number, 0 or more.", code: "INVALID_QUERY")
            }
            return value
        }
        return (try number("offset") ?? 0, try number("limit") ?? .max)
    }

    static func existing(_ request: HTTPRequest, in stubs: StubStore) throws -> StubMapping {
        let id = request.pathParameters["id"] ?? ""
        guard let mapping = stubs.mapping(id: id) else { throw notFound(id) }
        return mapping
    }

    static func notFound(_ id: String) -> ProblemDetails {
        ProblemDetails(
            status: 404, code: "MAPPING_NOT_FOUND",
            detail: "No stub mapping with id '\(id)'; GET /__admin/mappings lists them.")
    }
}
