import Logging

/// The responder a server runs. For each request: `middleware` (around everything), then
/// the router finds the part of it the path belongs to and runs that part's middleware
/// around the answer — the matched route, a 405, or for a path under no group the fallback
/// (static files) and then a 404; a 404 under a group is the group's own, without the
/// fallback. Errors become problem+json here, so a handler can never take the connection
/// down.
///
/// The route is chosen before the router's or a group's middleware runs (those middleware
/// see `pathParameters`); a change they make to the request's path does not choose another.
public struct RoutingResponder: HTTPResponder {
    public let router: Router
    private let middleware: [any HTTPMiddleware]
    private let fallback: (@Sendable (HTTPRequest) throws -> HTTPResponse?)?
    private let bodyStreaming: (@Sendable (_ head: HTTPRequest, _ reachesFallback: Bool) -> Bool)?
    private let logger: Logger

    /// - Parameters:
    ///   - middleware: Runs around every request, whichever part of the router it belongs
    ///     to, before the router looks at it.
    ///   - fallback: Answers paths that belong to no group and match no route; nil leaves
    ///     them to the 404.
    ///   - bodyStreaming: Whether a head's body streams (`HTTPResponder.streamsBody(of:)`),
    ///     told whether the head would reach `fallback`; nil: no body streams.
    public init(
        router: Router, middleware: [any HTTPMiddleware] = [],
        fallback: (@Sendable (HTTPRequest) throws -> HTTPResponse?)? = nil,
        bodyStreaming: (@Sendable (_ head: HTTPRequest, _ reachesFallback: Bool) -> Bool)? = nil, logger: Logger
    ) {
        self.router = router
        self.middleware = middleware
        self.fallback = fallback
        self.bodyStreaming = bodyStreaming
        self.logger = logger
    }

    public func streamsBody(of head: HTTPRequest) -> Bool {
        guard let bodyStreaming else { return false }
        let lookup = router.lookup(method: head.method, path: head.path)
        var reachesFallback = false
        if case .notFound = lookup.resolution, lookup.group == nil { reachesFallback = fallback != nil }
        return bodyStreaming(head, reachesFallback)
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        do {
            return try Self.run(middleware, request, around: route)
        } catch let error as any HTTPResponseError {
            return error.response
        } catch {
            logger.error("handler failed", metadata: ["target": "\(request.target)", "error": "\(error)"])
            return ProblemDetails(status: 500, code: "INTERNAL_ERROR", detail: "The handler failed: \(error)").response
        }
    }

    /// Runs `middleware[index...]` around `endpoint`.
    private static func run(
        _ middleware: [any HTTPMiddleware], from index: Int = 0, _ request: HTTPRequest,
        around endpoint: (HTTPRequest) throws -> HTTPResponse
    ) throws -> HTTPResponse {
        guard index < middleware.count else { return try endpoint(request) }
        return try middleware[index].respond(to: request) { try run(middleware, from: index + 1, $0, around: endpoint) }
    }

    private func route(_ request: HTTPRequest) throws -> HTTPResponse {
        let lookup = router.lookup(method: request.method, path: request.path)
        var request = request
        if case .matched(_, let parameters) = lookup.resolution { request.pathParameters = parameters }
        return try Self.run(lookup.middleware, request) { try answer($0, lookup) }
    }

    private func answer(_ request: HTTPRequest, _ lookup: Router.Lookup) throws -> HTTPResponse {
        switch lookup.resolution {
        case .matched(let route, _):
            return try route.handler(request)
        case .methodNotAllowed(let allow):
            if request.method == "OPTIONS" {
                return HTTPResponse(status: 204, headers: ["Allow": allow.joined(separator: ", ")])
            }
            var response = ProblemDetails(
                status: 405, code: "METHOD_NOT_ALLOWED",
                detail:
                    "\(request.method) is not allowed on \(request.path); allowed: \(allow.joined(separator: ", "))."
            )
            .response
            response.headers.set("Allow", allow.joined(separator: ", "))
            return response
        case .notFound:
            if lookup.group == nil, let fallback, let response = try fallback(request) { return response }
            throw ProblemDetails.notFound("No route for \(request.method) \(request.path).")
        }
    }
}
