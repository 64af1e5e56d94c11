/// Answers a request, or throws a `ProblemDetails` (any other error becomes a 500).
public typealias HTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

/// A method, a path pattern and the handler they lead to.
public struct Route: Sendable {
    public let method: String
    public let pattern: RoutePattern
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
public struct Router: Sendable {
    public private(set) var routes: [Route] = []
    /// Indexes into `routes`, in the order the routes were added, of those a path whose
    /// first segment is this literal can match: the routes starting with it and every route
    /// in `openRoutes`. Built at wiring time, so a lookup does no merging.
    private var routesByFirstSegment: [String: [Int]] = [:]
    /// Indexes of the routes whose first segment is not a literal (or that have none).
    private var openRoutes: [Int] = []

    public init() {}

    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping HTTPHandler) {
        let route = Route(method: method, pattern: RoutePattern(pattern), handler: handler)
        let index = routes.count
        if case .literal(let first)? = route.pattern.segments.first {
            routesByFirstSegment[first, default: openRoutes].append(index)
        } else {
            openRoutes.append(index)
            for first in routesByFirstSegment.keys { routesByFirstSegment[first]?.append(index) }
        }
        routes.append(route)
    }

    /// The indexes of the routes that can match a path starting with `first`, in the order
    /// the routes were added.
    private func candidateIndexes(first: Substring?) -> [Int] {
        guard let first else { return openRoutes }
        return routesByFirstSegment[String(first)] ?? openRoutes
    }

    public mutating func get(_ pattern: String, _ handler: @escaping HTTPHandler) { add("GET", pattern, handler) }
    public mutating func post(_ pattern: String, _ handler: @escaping HTTPHandler) { add("POST", pattern, handler) }
    public mutating func put(_ pattern: String, _ handler: @escaping HTTPHandler) { add("PUT", pattern, handler) }
    public mutating func delete(_ pattern: String, _ handler: @escaping HTTPHandler) { add("DELETE", pattern, handler) }

    /// Finds the route for `method` and `path`. HEAD falls back to GET (RFC 9110 §9.3.2).
    ///
    /// Only the most specific patterns that match the path count (a literal segment beats
    /// a parameter at the first place they differ), as OpenAPI matches concrete paths
    /// before templated ones: `/mappings/reset` is not also `/mappings/{id}`, so its
    /// `Allow` lists only the methods of `/mappings/reset`.
    public func resolve(method: String, path: String) -> RouteResolution {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var candidates: [(route: Route, parameters: [String: String])] = []
        for index in candidateIndexes(first: segments.first) {
            guard let parameters = routes[index].pattern.match(segments) else { continue }
            candidates.append((routes[index], parameters))
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
