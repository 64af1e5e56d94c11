/// Answers a request, or throws a `ProblemDetails` (any other error becomes a 500).
public typealias HTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

/// A method, a path pattern and the handler they lead to.
public struct Route: Sendable {
    public let method: String
    /// The full pattern, the group's prefix included.
    public let pattern: RoutePattern
    /// The prefix of the group the route belongs to; nil for a route of the router itself.
    public let group: RoutePrefix?
    let handler: HTTPHandler
}

/// What the router found for a method and path.
public enum RouteResolution: Sendable {
    case matched(Route, parameters: [String: String])
    /// The path exists, the method does not; `allow` lists the methods that do.
    case methodNotAllowed(allow: [String])
    case notFound
}

/// Maps method and path to handlers. Built once at wiring time, then read-only.
///
/// The router's own routes (the root) and its groups split the paths between them: a path
/// belongs to the group with the longest prefix that contains it (`RoutePrefix.contains`),
/// else to the root, and only the routes of the part it belongs to are tried. So a root
/// route that starts with a parameter (`/{tenant}/status`) never matches under a group's
/// prefix, and a 404 or 405 under a prefix is the group's. Each part has its own middleware:
/// the root's (`middleware`) also wraps the responder's fallback; a group's wraps its routes
/// only.
public struct Router: RouteBuilder, Sendable {
    /// Every route, the groups' included, in the order they were added.
    public private(set) var routes: [Route] = []
    /// Runs around the router's own routes and the fallback, never around a group's routes.
    public let middleware: [any HTTPMiddleware]
    private var rootTable = RouteTable()
    /// Longest prefix first, so the first group that contains a path owns it.
    private var groups: [Group] = []

    private struct Group: Sendable {
        let prefix: RoutePrefix
        let middleware: [any HTTPMiddleware]
        var table = RouteTable()
    }

    /// Where a request goes: the middleware of the part of the router its path belongs to,
    /// and what that part's routes say.
    struct Lookup {
        /// The owning group's prefix; nil for the root.
        let group: RoutePrefix?
        let middleware: [any HTTPMiddleware]
        let resolution: RouteResolution
    }

    /// A router whose own routes and fallback run inside `middleware` (first to last,
    /// outermost first).
    public init(middleware: [any HTTPMiddleware] = []) {
        self.middleware = middleware
    }

    /// Adds a route of the router itself. Its pattern must not lie under a group's prefix,
    /// where it could never be reached.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping HTTPHandler) {
        insert(Route(method: method, pattern: RoutePattern(pattern), group: nil, handler: handler))
    }

    /// Adds the group of routes under `prefix` that `build` adds, with its own `middleware`
    /// (first to last, outermost first), as Hummingbird's `RouterGroup`. The router's own
    /// middleware does not run around them.
    ///
    /// Groups do not nest, and no two share a prefix. One prefix may lie under another
    /// (`/api` and `/api/v2`): the longer one owns its paths.
    public mutating func group(
        _ prefix: RoutePrefix, middleware: [any HTTPMiddleware] = [], _ build: (inout RouterGroup) throws -> Void
    ) rethrows {
        precondition(!groups.contains { $0.prefix == prefix }, "Two router groups at \(prefix).")
        var group = RouterGroup(prefix: prefix, middleware: middleware)
        try build(&group)
        groups.append(Group(prefix: prefix, middleware: middleware))
        groups.sort { $0.prefix.segments.count > $1.prefix.segments.count }
        for route in routes {
            precondition(owner(of: route.pattern) == route.group, "\(route.pattern) lies under the group at \(prefix).")
        }
        for route in group.routes { insert(route) }
    }

    /// The prefix of the group `path` belongs to; nil when it belongs to the router's own
    /// routes.
    public func group(containing path: String) -> RoutePrefix? {
        groups.first { $0.prefix.contains(path: path) }?.prefix
    }

    /// Finds the route for `method` and `path`. HEAD falls back to GET (RFC 9110 §9.3.2).
    ///
    /// Only the most specific patterns that match the path count (a literal segment beats
    /// a parameter at the first place they differ), as OpenAPI matches concrete paths
    /// before templated ones: `/mappings/reset` is not also `/mappings/{id}`, so its
    /// `Allow` lists only the methods of `/mappings/reset`.
    public func resolve(method: String, path: String) -> RouteResolution {
        lookup(method: method, path: path).resolution
    }

    /// The part of the router `path` belongs to, and the route for `method` there.
    func lookup(method: String, path: String) -> Lookup {
        let segments = Array(PathSegments(path))
        guard let index = groups.firstIndex(where: { $0.prefix.contains(segments) }) else {
            return Lookup(
                group: nil, middleware: middleware,
                resolution: resolve(method, segments, rootTable.candidates(first: segments.first)))
        }
        let group = groups[index]
        return Lookup(
            group: group.prefix, middleware: group.middleware,
            resolution: resolve(method, segments, group.table.candidates(first: segments.first)))
    }

    private mutating func insert(_ route: Route) {
        precondition(owner(of: route.pattern) == route.group, "\(route.pattern) lies under another router group.")
        let index = routes.count
        routes.append(route)
        if let prefix = route.group, let group = groups.firstIndex(where: { $0.prefix == prefix }) {
            groups[group].table.insert(index, pattern: route.pattern)
        } else {
            rootTable.insert(index, pattern: route.pattern)
        }
    }

    /// The prefix of the group whose paths `pattern` matches; nil for the root. A pattern
    /// that starts with a parameter matches root paths.
    private func owner(of pattern: RoutePattern) -> RoutePrefix? {
        groups.first { $0.prefix.contains(pattern) }?.prefix
    }

    private func resolve(_ method: String, _ segments: [Substring], _ candidateIndexes: [Int]) -> RouteResolution {
        // Most paths match one pattern: answered without collecting the candidates.
        var only: (index: Int, parameters: [String: String])?
        var candidates: [(route: Route, parameters: [String: String])] = []
        for index in candidateIndexes {
            guard let parameters = routes[index].pattern.match(segments) else { continue }
            if candidates.isEmpty, only == nil {
                only = (index, parameters)
                continue
            }
            if let first = only {
                candidates.append((routes[first.index], first.parameters))
                only = nil
            }
            candidates.append((routes[index], parameters))
        }
        if let only {
            if routes[only.index].method == method { return .matched(routes[only.index], parameters: only.parameters) }
            candidates.append((routes[only.index], only.parameters))
        }
        guard let best = candidates.map(\.route.pattern.specificity).max(by: RoutePattern.lessSpecific) else {
            return .notFound
        }
        var allowed: [String] = []
        var headFallback: (Route, [String: String])?
        for (route, parameters) in candidates where route.pattern.specificity == best {
            if route.method == method { return .matched(route, parameters: parameters) }
            if method == "HEAD", route.method == "GET", headFallback == nil { headFallback = (route, parameters) }
            allowed.append(route.method)
        }
        if let (route, parameters) = headFallback { return .matched(route, parameters: parameters) }
        guard !allowed.isEmpty else { return .notFound }
        if allowed.contains("GET") { allowed.append("HEAD") }
        allowed.append("OPTIONS")
        var unique: [String] = []
        for method in allowed where !unique.contains(method) { unique.append(method) }
        return .methodNotAllowed(allow: unique)
    }
}
