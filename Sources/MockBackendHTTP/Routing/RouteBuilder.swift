/// Where routes are added: the `Router` itself (its root, the public routes) or one of its
/// groups (`RouterGroup`).
public protocol RouteBuilder {
    /// Adds a route. `pattern` is a `RoutePattern`; in a group it is relative to the
    /// group's prefix.
    mutating func add(_ method: String, _ pattern: String, _ handler: @escaping HTTPHandler)
}

extension RouteBuilder {
    public mutating func get(_ pattern: String, _ handler: @escaping HTTPHandler) { add("GET", pattern, handler) }
    public mutating func post(_ pattern: String, _ handler: @escaping HTTPHandler) { add("POST", pattern, handler) }
    public mutating func put(_ pattern: String, _ handler: @escaping HTTPHandler) { add("PUT", pattern, handler) }
    public mutating func delete(_ pattern: String, _ handler: @escaping HTTPHandler) {
        add("DELETE", pattern, handler)
    }
}
