/// The leading literal segments a router group owns, such as `/__admin`, and the one test
/// of whether a path lies under them.
///
/// A path is under the prefix when its first segments, as `PathSegments` reads them, are
/// the prefix's segments, compared as `RoutePattern` compares a literal segment: exactly,
/// case-sensitive, without percent-decoding. So, for `/__admin`:
///
/// - under it: `/__admin`, `/__admin/`, `//__admin/faults`, `/__admin//faults/`, and
///   `/__admin/../x` (dot segments are not removed, see `PathSegments`);
/// - not under it: `/__administrator`, `/__ADMIN/faults`, `/__admin%2Ffaults` (one segment),
///   `/%2F__admin`, `/%5F_admin/faults` (`%5F` is `_` once decoded, RFC 3986 §2.3, but
///   literal segments are compared as sent), `/x/../__admin/faults`, `/./__admin`.
///
/// `Router` gives a path to the group whose prefix contains it by this same test, so a
/// caller that asks `contains(path:)` gets the router's answer.
public struct RoutePrefix: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The literal segments, in order; at least one.
    public let segments: [String]

    public init(_ prefix: String) {
        segments = PathSegments(prefix).map(String.init)
        precondition(!segments.isEmpty, "A route prefix needs at least one segment: '\(prefix)'.")
        precondition(
            !segments.contains { $0 == "*" || $0.hasPrefix("{") },
            "A route prefix has literal segments only: '\(prefix)'.")
    }

    public init(stringLiteral prefix: String) {
        self.init(prefix)
    }

    public var description: String { "/" + segments.joined(separator: "/") }

    /// Whether `path` (a request path, still percent-encoded) lies under the prefix.
    /// Allocates nothing.
    public func contains(path: String) -> Bool {
        var pathSegments = PathSegments(path).makeIterator()
        for segment in segments {
            // Bytewise, as routes match (`RoutePattern.match`).
            guard let next = pathSegments.next(), next.hasSameBytes(as: segment) else { return false }
        }
        return true
    }

    /// Whether a path already split by `PathSegments` lies under the prefix.
    func contains(_ pathSegments: [Substring]) -> Bool {
        guard pathSegments.count >= segments.count else { return false }
        for (segment, pathSegment) in zip(segments, pathSegments) where !pathSegment.hasSameBytes(as: segment) {
            return false
        }
        return true
    }

    /// Whether every path a pattern can match lies under the prefix: its leading literal
    /// segments start with the prefix's.
    func contains(_ pattern: RoutePattern) -> Bool {
        guard pattern.segments.count >= segments.count else { return false }
        for (segment, patternSegment) in zip(segments, pattern.segments) {
            guard case .literal(let literal) = patternSegment, literal == segment else { return false }
        }
        return true
    }

    /// The pattern of `relative` (e.g. `/faults`, or `/` for the prefix itself) under the prefix.
    func appending(_ relative: String) -> String {
        let rest = relative.drop { $0 == "/" }
        return rest.isEmpty ? description : description + "/" + rest
    }
}
