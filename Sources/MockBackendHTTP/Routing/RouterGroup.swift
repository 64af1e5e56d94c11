/// Routes under one path prefix that share a middleware stack, as Hummingbird's
/// `RouterGroup`: made by `Router.group(_:middleware:_:)`, which hands it to a closure to
/// fill.
///
/// A pattern added to the group is relative to its prefix: in the `/__admin` group,
/// `/faults` is `/__admin/faults`, and `/` (or the empty string) is `/__admin` itself.
/// The group's middleware runs around each of its routes, and around the 404 and 405
/// answers for paths under the prefix that none of them matches; the router's own
/// middleware and its fallback never see those paths.
public struct RouterGroup: RouteBuilder, Sendable {
    /// The prefix every path of the group starts with.
    public let prefix: RoutePrefix
    /// Runs around the group's routes, first to last, outermost first.
    public let middleware: [any HTTPMiddleware]
    /// The routes added, with their full patterns (prefix included).
    public private(set) var routes: [Route] = []

    init(prefix: RoutePrefix, middleware: [any HTTPMiddleware]) {
        self.prefix = prefix
        self.middleware = middleware
    }

    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping HTTPHandler) {
        routes.append(
            Route(method: method, pattern: RoutePattern(prefix.appending(pattern)), group: prefix, handler: handler))
    }
}
