import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The server's side of `RequestMatcher`: its patterns checked, and journaled requests
/// matched against it.
extension RequestMatcher {
    /// Refuses patterns that do not compile, naming the field.
    package func validated() throws -> RequestMatcher {
        if let urlPathPattern { _ = try Self.regex(urlPathPattern, field: "urlPathPattern") }
        for (name, condition) in headers ?? [:] {
            if let pattern = condition.matches { _ = try Self.regex(pattern, field: "headers.\(name).matches") }
        }
        return self
    }

    /// Whether every condition holds for `request`.
    package func matches(_ request: JournaledRequest) -> Bool {
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
