import MockBackendHTTP

/// Answers with a stub of priority 1 before any built-in route sees the request: built-in
/// routes win over stubs unless the stub says `"priority":1` (README, "Stubs"). Other stubs answer from the router's fallback, only for paths no
/// built-in route knows (`StubStore.fallbackResponse`).
struct StubMiddleware: HTTPMiddleware {
    /// The priority that outranks the built-in routes.
    static let overridingPriority = 1

    let stubs: StubStore
    let services: StubServices

    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        if let mapping = stubs.match(request, priorityAtMost: Self.overridingPriority) {
            return mapping.makeResponse(to: request, services: services)
        }
        return try next(request)
    }
}

extension StubStore {
    /// The answer of the best stub for a path no route knows; nil leaves it to the static
    /// files (and then 404).
    func fallbackResponse(for request: HTTPRequest, services: StubServices) -> HTTPResponse? {
        match(request)?.makeResponse(to: request, services: services)
    }
}

/// What stubs answer with besides their own definition: the proxy for `proxyBaseUrl`, the
/// stream engine and the clock for `sse`.
struct StubServices: Sendable {
    let forwarder: ProxyForwarder
    let replay: StubReplay.Services
}
