import Logging
import MockBackendHTTP
import TestSupport
import Testing

/// Adds its name to `X-Seen-By` on the way out, so a test sees which middleware ran.
private struct Tag: HTTPMiddleware {
    let name: String

    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        var response: HTTPResponse
        do {
            response = try next(request)
        } catch let error as any HTTPResponseError {
            response = error.response
        }
        response.headers.add("X-Seen-By", name)
        return response
    }
}

/// Refuses every request without `X-Token`, before the route.
private struct Guard: HTTPMiddleware {
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        guard request.headers["X-Token"] != nil else {
            throw ProblemDetails(status: 401, code: "UNAUTHORIZED", detail: "No token.")
        }
        return try next(request)
    }
}

/// Answers with the path parameters it sees, before the route.
private struct ParameterEcho: HTTPMiddleware {
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        var response = try next(request)
        response.headers.set("X-Parameters", request.pathParameters.map { "\($0.key)=\($0.value)" }.sorted().joined())
        return response
    }
}

private func text(_ response: HTTPResponse) -> String {
    guard case .bytes(let bytes) = response.body else { return "" }
    return String(decoding: bytes, as: UTF8.self)
}

/// The router of these tests: public routes inside `public`, the `/admin` group inside
/// `admin` (and `Guard` when `guarded`), and a fallback that answers every path it is given.
private func makeRouter(guarded: Bool = false) -> Router {
    var router = Router(middleware: [Tag(name: "public")])
    router.get("/items/{id}") { request in .text("item \(request.pathParameters["id"] ?? "")") }
    router.get("/{tenant}/status") { request in .text("status of \(request.pathParameters["tenant"] ?? "")") }
    let middleware: [any HTTPMiddleware] = [Tag(name: "admin"), ParameterEcho()] + (guarded ? [Guard()] : [])
    router.group("/admin", middleware: middleware) { admin in
        admin.get("/") { _ in .text("admin root") }
        admin.get("/things") { _ in .text("things") }
        admin.post("/things") { _ in .text("made") }
        admin.get("/things/{id}") { request in .text("thing \(request.pathParameters["id"] ?? "")") }
    }
    return router
}

private func responder(guarded: Bool = false, middleware: [any HTTPMiddleware] = []) -> RoutingResponder {
    RoutingResponder(
        router: makeRouter(guarded: guarded), middleware: middleware, fallback: { _ in .text("fallback") },
        logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
}

private func get(_ target: String, method: String = "GET", _ responder: RoutingResponder = responder())
    -> HTTPResponse
{
    responder.respond(to: HTTPRequest(method: method, target: target))
}

@Suite("Router groups")
struct RouterGroupTests {
    @Test func aGroupsRoutesRunInsideTheGroupsMiddlewareOnly() {
        let things = get("/admin/things")
        #expect(text(things) == "things")
        #expect(things.headers.values(for: "X-Seen-By") == ["admin"])
        #expect(text(get("/admin")) == "admin root")
        #expect(text(get("/admin/")) == "admin root")
        let item = get("/items/7")
        #expect(text(item) == "item 7")
        #expect(item.headers.values(for: "X-Seen-By") == ["public"])
    }

    @Test func theFallbackRunsInsideTheRootMiddlewareForPathsOutsideEveryGroup() {
        let other = get("/elsewhere/a/b")
        #expect(text(other) == "fallback")
        #expect(other.headers.values(for: "X-Seen-By") == ["public"])
    }

    /// A 404 or 405 under a group is the group's: its middleware runs around it, and the
    /// fallback (which would answer anything) is never asked.
    @Test func unknownPathsAndMethodsUnderAGroupAreTheGroups() {
        let missing = get("/admin/nothing")
        #expect(missing.status == 404)
        #expect(missing.headers.values(for: "X-Seen-By") == ["admin"])
        let wrongMethod = get("/admin/things", method: "DELETE")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["Allow"] == "GET, POST, HEAD, OPTIONS")
        #expect(wrongMethod.headers.values(for: "X-Seen-By") == ["admin"])
        let options = get("/admin/things", method: "OPTIONS")
        #expect(options.status == 204)
        #expect(options.headers.values(for: "X-Seen-By") == ["admin"])
    }

    /// So a guard on the group refuses an unknown path (401) before anyone learns it is unknown.
    @Test func aGroupsGuardAnswersBeforeItsNotFound() {
        let guarded = responder(guarded: true)
        #expect(get("/admin/nothing", guarded).status == 401)
        #expect(get("/admin/things", method: "OPTIONS", guarded).status == 401)
        #expect(get("/items/1", guarded).status == 200)
        let allowed = guarded.respond(
            to: HTTPRequest(method: "GET", target: "/admin/things", headers: ["X-Token": "t"]))
        #expect(allowed.status == 200)
    }

    @Test func theRespondersOwnMiddlewareRunsAroundEveryPart() {
        let outer = responder(middleware: [Tag(name: "outer")])
        #expect(get("/admin/things", outer).headers.values(for: "X-Seen-By") == ["admin", "outer"])
        #expect(get("/items/1", outer).headers.values(for: "X-Seen-By") == ["public", "outer"])
        #expect(get("/nothing", outer).headers.values(for: "X-Seen-By") == ["public", "outer"])
    }

    @Test func aGroupsMiddlewareSeesThePathParameters() {
        #expect(get("/admin/things/a%20b").headers["X-Parameters"] == "id=a b")
    }

    /// A root route that starts with a parameter could match `/admin/status`, but that path
    /// is the group's.
    @Test func rootRoutesNeverMatchUnderAGroup() {
        #expect(text(get("/shop/status")) == "status of shop")
        let underGroup = get("/admin/status")
        #expect(underGroup.status == 404)
        #expect(underGroup.headers.values(for: "X-Seen-By") == ["admin"])
    }

    /// The group a path belongs to is read from its segments as the router reads them.
    @Test func pathsBelongToAGroupByTheirSegments() {
        let router = makeRouter()
        let underAdmin = ["/admin", "/admin/", "//admin/things", "/admin//things/", "/admin/../items/1", "/admin/x/y"]
        let outside = [
            "/", "", "/administrator", "/Admin/things", "/admin%2Fthings", "/%2Fadmin/things", "/%61dmin/things",
            "/x/../admin/things", "/./admin", "/items/1",
        ]
        for path in underAdmin {
            #expect(router.group(containing: path) == "/admin", "\(path)")
            #expect(RoutePrefix("/admin").contains(path: path), "\(path)")
            #expect(get(path).headers.values(for: "X-Seen-By") == ["admin"], "\(path)")
        }
        for path in outside {
            #expect(router.group(containing: path) == nil, "\(path)")
            #expect(!RoutePrefix("/admin").contains(path: path), "\(path)")
        }
        #expect(text(get("//admin/things")) == "things")
        #expect(text(get("/admin/../items/1")) != "item 1")
    }

    @Test func theLongestPrefixOwnsItsPaths() {
        var router = Router()
        router.group("/api") { api in api.get("/{name}") { _ in .text("api") } }
        router.group("/api/v2") { v2 in v2.get("/users") { _ in .text("v2") } }
        #expect(router.group(containing: "/api/v2/users") == "/api/v2")
        #expect(router.group(containing: "/api/v1") == "/api")
        guard case .notFound = router.resolve(method: "GET", path: "/api/v2") else {
            Issue.record("/api/v2 is the /api/v2 group's, which has no route for it")
            return
        }
        guard case .matched(let route, _) = router.resolve(method: "GET", path: "/api/v2/users") else {
            Issue.record("/api/v2/users should match")
            return
        }
        #expect(route.group == "/api/v2")
    }

    @Test func routesAreListedWithTheirFullPatternsAndGroups() {
        let routes = makeRouter().routes
        #expect(routes.map { "\($0.method) \($0.pattern)" }.contains("GET /admin/things/{id}"))
        #expect(routes.map { "\($0.method) \($0.pattern)" }.contains("GET /admin"))
        #expect(routes.filter { $0.group == "/admin" }.count == 4)
        #expect(routes.filter { $0.group == nil }.count == 2)
    }

    /// `PathSegments` splits as `split(separator: "/")` does, empty pieces dropped.
    @Test func pathSegmentsSplitAtEverySlash() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["/", "/", "a", "b", ".", "%", "2", "F", "_"]
        for _ in 0..<2000 {
            let length = Int.random(in: 0...12, using: &generator)
            let path = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(Array(PathSegments(path)) == path.split(separator: "/"), "\(path)")
        }
        #expect(Array(PathSegments("//a//b/")) == ["a", "b"])
        #expect(Array(PathSegments("/a/../b")) == ["a", "..", "b"])
    }
}
