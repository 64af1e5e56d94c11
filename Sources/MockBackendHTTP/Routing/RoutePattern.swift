/// A path pattern such as `/v1/player/{userId}/details`: literal segments, `{name}`
/// parameters that take one segment, and a trailing `*` that takes the rest.
public struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case rest
    }

    let segments: [Segment]
    public let description: String

    public init(_ pattern: String) {
        description = pattern
        segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            if part == "*" { return .rest }
            if part.hasPrefix("{"), part.hasSuffix("}") { return .parameter(String(part.dropFirst().dropLast())) }
            return .literal(String(part))
        }
    }

    /// The parameters if `path` (percent-encoded segments) matches, else nil.
    func match(_ path: [Substring]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest:
                return parameters
            case .literal(let literal):
                guard index < path.count, path[index] == literal else { return nil }
            case .parameter(let name):
                guard index < path.count, let value = PercentDecoding.decode(path[index]) else { return nil }
                parameters[name] = value
            }
        }
        return path.count == segments.count ? parameters : nil
    }
}
