/// A path pattern such as `/v1/player/{userId}/details`: literal segments, `{name}`
/// parameters that take one segment, at most one `{name...}` parameter that takes one or
/// more segments (joined with `/`, for names like `userinfo/7000001`), and a trailing `*`
/// that takes the rest.
public struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case span(String)
        case rest
    }

    let segments: [Segment]
    public let description: String

    public init(_ pattern: String) {
        description = pattern
        segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            if part == "*" { return .rest }
            if part.hasPrefix("{"), part.hasSuffix("...}") { return .span(String(part.dropFirst().dropLast(4))) }
            if part.hasPrefix("{"), part.hasSuffix("}") { return .parameter(String(part.dropFirst().dropLast())) }
            return .literal(String(part))
        }
        specificity = segments.map { segment in
            switch segment {
            case .literal: 3
            case .parameter: 2
            case .span: 1
            case .rest: 0
            }
        }
    }

    /// How specific each segment is, in order: a literal 3, a parameter 2, a span 1, the
    /// rest 0. Of two patterns that match one path, the one whose ranks compare greater
    /// wins.
    let specificity: [Int]

    /// Whether `lhs` is less specific than `rhs` (lexicographic on `specificity`).
    static func lessSpecific(_ lhs: [Int], _ rhs: [Int]) -> Bool {
        lhs.lexicographicallyPrecedes(rhs)
    }

    /// The parameters if `path` (percent-encoded segments) matches, else nil.
    func match(_ path: [Substring]) -> [String: String]? {
        var parameters: [String: String] = [:]
        var pathIndex = 0
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest:
                return parameters
            case .literal(let literal):
                // Bytewise (RFC 3986 §6.2.1): a target is ASCII, so no Unicode comparison is needed.
                guard pathIndex < path.count, path[pathIndex].hasSameBytes(as: literal) else { return nil }
            case .parameter(let name):
                guard pathIndex < path.count, let value = PercentDecoding.decode(path[pathIndex]) else { return nil }
                parameters[name] = value
            case .span(let name):
                // The span takes whatever the segments after it leave over, at least one.
                let tail = segments.count - index - 1
                let end = path.count - tail
                guard end > pathIndex else { return nil }
                var parts: [String] = []
                for part in path[pathIndex..<end] {
                    guard let value = PercentDecoding.decode(part) else { return nil }
                    parts.append(value)
                }
                parameters[name] = parts.joined(separator: "/")
                pathIndex = end
                continue
            }
            pathIndex += 1
        }
        return pathIndex == path.count ? parameters : nil
    }
}
