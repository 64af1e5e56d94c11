/// The routes of one group (or of the router's own routes) indexed by first segment, so a
/// lookup tries only the routes a path can match. Built at wiring time, then read-only.
struct RouteTable: Sendable {
    /// Indexes into the router's `routes`, in the order the routes were added, of those a
    /// path whose first segment is this literal can match: the routes starting with it and
    /// every route in `openRoutes`. Built at wiring time, so a lookup does no merging.
    private var routesByFirstSegment: [String: [Int]] = [:]
    /// Indexes of the routes whose first segment is not a literal (or that have none).
    private var openRoutes: [Int] = []

    mutating func insert(_ index: Int, pattern: RoutePattern) {
        if case .literal(let first)? = pattern.segments.first {
            routesByFirstSegment[first, default: openRoutes].append(index)
        } else {
            openRoutes.append(index)
            for first in routesByFirstSegment.keys { routesByFirstSegment[first]?.append(index) }
        }
    }

    /// The indexes of the routes that can match a path starting with `first`, in the order
    /// the routes were added.
    func candidates(first: Substring?) -> [Int] {
        guard let first else { return openRoutes }
        return routesByFirstSegment[String(first)] ?? openRoutes
    }
}
