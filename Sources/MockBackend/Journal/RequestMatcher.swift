import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A WireMock-style request matcher: every given condition must hold.
///
/// `url` is the exact target (path and query), `urlPath` the exact path, `urlPathPattern`
/// a regular expression the whole path must match, `path` a glob where `*` is any run of
/// characters within a segment and `**` any run at all; `headers` maps a name to
/// `equalTo`, `contains` or `matches`; `bodyContains` looks in the body excerpt.
public struct RequestMatcher: Codable, Sendable, Equatable {
    public struct HeaderCondition: Codable, Sendable, Equatable {
        public var equalTo: String?
        public var contains: String?
        public var matches: String?

        public init(equalTo: String? = nil, contains: String? = nil, matches: String? = nil) {
            self.equalTo = equalTo
            self.contains = contains
            self.matches = matches
        }
    }

    public var method: String?
    public var url: String?
    public var urlPath: String?
    public var urlPathPattern: String?
    public var path: String?
    public var headers: [String: HeaderCondition]?
    public var bodyContains: String?

    public init(method: String? = nil, path: String? = nil) {
        self.method = method
        self.path = path
    }

    /// Refuses patterns that do not compile, naming the field.
    public func validated() throws -> RequestMatcher {
        if let urlPathPattern { _ = try Self.regex(urlPathPattern, field: "urlPathPattern") }
        for (name, condition) in headers ?? [:] {
            if let pattern = condition.matches { _ = try Self.regex(pattern, field: "headers.\(name).matches") }
        }
        return self
    }

    public func matches(_ request: JournaledRequest) -> Bool {
        if let method, method.uppercased() != "ANY", method.uppercased() != request.method.uppercased() { return false }
        if let url, url != request.target { return false }
        if let urlPath, urlPath != request.path { return false }
        if let urlPathPattern {
            guard let regex = try? Self.regex(urlPathPattern, field: "urlPathPattern"),
                (try? regex.wholeMatch(in: request.path)) != nil
            else { return false }
        }
        if let path, !Glob(path).matches(request.path) { return false }
        for (name, condition) in headers ?? [:] {
            let value = request.headers.first { $0.key.lowercased() == name.lowercased() }?.value
            guard let value else { return false }
            if let expected = condition.equalTo, value != expected { return false }
            if let part = condition.contains, !value.contains(part) { return false }
            if let pattern = condition.matches {
                guard let regex = try? Self.regex(pattern, field: name), (try? regex.wholeMatch(in: value)) != nil
                else {
                    return false
                }
            }
        }
        if let bodyContains, !request.bodyExcerpt.contains(bodyContains) { return false }
        return true
    }

    static func regex(_ pattern: String, field: String) throws -> Regex<AnyRegexOutput> {
        guard let regex = PatternSyntax.compile(pattern) else {
            throw ProblemDetails.badRequest("Field '\(field)' is not a valid regular expression.", code: "INVALID_BODY")
        }
        return regex
    }
}
