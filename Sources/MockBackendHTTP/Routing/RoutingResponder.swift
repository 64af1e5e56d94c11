import Logging

/// The responder a server runs: middleware in order, then the router, then the fallback
/// (static files) for paths no route knows. Errors become problem+json here, so a handler
/// can never take the connection down.
public struct RoutingResponder: HTTPResponder {
    public let router: Router
    private let middleware: [any HTTPMiddleware]
    private let fallback: (@Sendable (HTTPRequest) throws -> HTTPResponse?)?
    private let logger: Logger

    public init(
        router: Router, middleware: [any HTTPMiddleware] = [],
        fallback: (@Sendable (HTTPRequest) throws -> HTTPResponse?)? = nil, logger: Logger
    ) {
        self.router = router
        self.middleware = middleware
        self.fallback = fallback
        self.logger = logger
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        do {
            return try handle(request, from: 0)
        } catch let error as any HTTPResponseError {
            return error.response
        } catch {
            logger.error("handler failed", metadata: ["target": "\(request.target)", "error": "\(error)"])
            return ProblemDetails(status: 500, code: "INTERNAL_ERROR", detail: "The handler failed: \(error)").response
        }
    }

    private func handle(_ request: HTTPRequest, from index: Int) throws -> HTTPResponse {
        guard index < middleware.count else { return try route(request) }
        return try middleware[index].respond(to: request) { try handle($0, from: index + 1) }
    }

    private func route(_ request: HTTPRequest) throws -> HTTPResponse {
        switch router.resolve(method: request.method, path: request.path) {
        case .matched(let route, let parameters):
            var request = request
            request.pathParameters = parameters
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
            if let fallback, let response = try fallback(request) { return response }
            throw ProblemDetails.notFound("No route for \(request.method) \(request.path).")
        }
    }
}
