import Logging
import MockBackendHTTP
import TestSupport
import Testing

/// Answers `GET /guarded` itself when the request carries no token.
private struct GuardMiddleware: HTTPMiddleware {
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        if request.path.hasPrefix("/guarded"), request.headers["X-Token"] == nil {
            throw ProblemDetails(status: 401, code: "UNAUTHORIZED", detail: "No token.")
        }
        var response = try next(request)
        response.headers.add("X-Seen-By", "guard")
        return response
    }
}

@Suite("Router and responder")
struct RouterTests {
    private func responder() -> RoutingResponder {
        var router = Router()
        router.get("/users/{id}") { request in .text("user \(request.pathParameters["id"]!)") }
        router.post("/users/{id}/orders/{order}") { request in
            .text("\(request.pathParameters["id"]!)/\(request.pathParameters["order"]!)")
        }
        router.get("/files/*") { request in .text("rest \(request.path)") }
        router.get("/guarded") { _ in .text("in") }
        return RoutingResponder(router: router, middleware: [GuardMiddleware()], logger: Logger(label: "t"))
    }

    private func text(_ response: HTTPResponse) -> String {
        guard case .bytes(let bytes) = response.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func matchesPathParametersPercentDecoded() {
        let response = responder().respond(to: HTTPRequest(method: "GET", target: "/users/a%20b"))
        #expect(response.status == 200)
        #expect(text(response) == "user a b")
        let orders = responder().respond(to: HTTPRequest(method: "POST", target: "/users/7/orders/9?x=1"))
        #expect(text(orders) == "7/9")
    }

    @Test func wildcardTakesTheRest() {
        #expect(
            text(responder().respond(to: HTTPRequest(method: "GET", target: "/files/a/b/c"))) == "rest /files/a/b/c")
    }

    @Test func unknownPathIs404ProblemJSON() {
        let response = responder().respond(to: HTTPRequest(method: "GET", target: "/users"))
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(text(response).contains(#""code":"NOT_FOUND""#))
    }

    @Test func wrongMethodIs405WithAllow() {
        let response = responder().respond(to: HTTPRequest(method: "DELETE", target: "/users/1"))
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, OPTIONS")
        let options = responder().respond(to: HTTPRequest(method: "OPTIONS", target: "/users/1/orders/2"))
        #expect(options.status == 204)
        #expect(options.headers["Allow"] == "POST, OPTIONS")
    }

    /// As OpenAPI matches paths: a concrete path is not also the template beside it.
    @Test func aLiteralSegmentBeatsAParameter() {
        var router = Router()
        router.get("/items/{id}") { _ in .text("item") }
        router.post("/items/reset") { _ in .text("reset") }
        guard case .methodNotAllowed(let allow) = router.resolve(method: "GET", path: "/items/reset") else {
            Issue.record("GET /items/reset should not reach /items/{id}")
            return
        }
        #expect(allow == ["POST", "OPTIONS"])
        guard case .matched(let route, let parameters) = router.resolve(method: "GET", path: "/items/other") else {
            Issue.record("GET /items/other should reach /items/{id}")
            return
        }
        #expect(route.pattern.description == "/items/{id}")
        #expect(parameters == ["id": "other"])
    }

    /// A route that starts with a parameter is tried for every path, whether it was added
    /// before or after the routes whose first segment is a literal.
    @Test func routesStartingWithAParameterMatchBesideLiteralOnes() {
        var router = Router()
        router.get("/{tenant}/status") { _ in .text("early") }
        router.get("/items/{id}") { _ in .text("item") }
        router.get("/{tenant}/a/b") { _ in .text("late") }
        let expected = [
            ("/items/status", "/items/{id}"), ("/other/status", "/{tenant}/status"),
            ("/items/a/b", "/{tenant}/a/b"), ("/other/a/b", "/{tenant}/a/b"), ("/items/7", "/items/{id}"),
        ]
        for (path, pattern) in expected {
            guard case .matched(let route, _) = router.resolve(method: "GET", path: path) else {
                Issue.record("GET \(path) should reach \(pattern)")
                continue
            }
            #expect(route.pattern.description == pattern, "GET \(path)")
        }
        guard case .notFound = router.resolve(method: "GET", path: "/items") else {
            Issue.record("GET /items matches nothing")
            return
        }
    }

    @Test func headFallsBackToGet() {
        #expect(responder().respond(to: HTTPRequest(method: "HEAD", target: "/users/3")).status == 200)
    }

    @Test func middlewareAnswersEarlyAndDecoratesResponses() {
        let refused = responder().respond(to: HTTPRequest(method: "GET", target: "/guarded"))
        #expect(refused.status == 401)
        #expect(text(refused).contains("UNAUTHORIZED"))
        let allowed = responder().respond(
            to: HTTPRequest(method: "GET", target: "/guarded", headers: ["X-Token": "t"]))
        #expect(allowed.status == 200)
        #expect(allowed.headers["X-Seen-By"] == "guard")
    }

    @Test func listsItsRoutes() {
        let routes = responder().router.routes.map { "\($0.method) \($0.pattern)" }
        #expect(routes.contains("GET /users/{id}"))
        #expect(routes.count == 4)
    }
}
