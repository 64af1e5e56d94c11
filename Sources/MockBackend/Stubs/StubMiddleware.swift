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
        if let answer = services.answer(request, from: stubs, priorityAtMost: Self.overridingPriority) {
            return answer
        }
        return try next(request)
    }
}

/// What stubs answer with besides their own definition: the proxy for `proxyBaseUrl`, the
/// stream engine and the clock for `sse`, the time and randomness templates read.
struct StubServices: Sendable {
    let forwarder: ProxyForwarder
    let replay: StubReplay.Services
    let templates: TemplateEnvironment
}
