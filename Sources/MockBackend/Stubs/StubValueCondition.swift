/// A regular expression compiled once, when the mapping is added (`PatternSyntax`: Swift
/// `Regex` syntax, which covers the Java syntax WireMock files use for classes, groups and
/// quantifiers).
///
/// `Regex` is not `Sendable` because its `Output` need not be. A mapping travels between
/// threads, but its patterns are matched only under `StubStore`'s lock, one thread at a
/// time, and the program is lowered here, before the value leaves this thread.
struct StubRegex: @unchecked Sendable {
    let pattern: String
    private let regex: Regex<AnyRegexOutput>

    /// Nil when `pattern` does not compile.
    init?(_ pattern: String) {
        guard let regex = PatternSyntax.compile(pattern) else { return nil }
        self.pattern = pattern
        self.regex = regex
        _ = try? regex.wholeMatch(in: "")
    }

    /// Whether the whole of `text` matches, as Java's `matches()` does for WireMock.
    func wholeMatches(_ text: String) -> Bool {
        (try? regex.wholeMatch(in: text)) != nil
    }
}

/// One WireMock value matcher for a header or query parameter: `{"equalTo": "…"}` (with
/// `"caseInsensitive": true`), `{"contains": "…"}`, `{"matches": "regex"}`,
/// `{"absent": true}`, or `{"or": [matchers]}` / `{"and": [matchers]}`.
indirect enum StubValueCondition: Sendable {
    case equalTo(String, caseInsensitive: Bool)
    case contains(String)
    case matches(StubRegex)
    case absent
    case or([StubValueCondition])
    case and([StubValueCondition])

    /// WireMock's rule for a field sent several times: it matches when one of its values
    /// does. `absent` matches only when there is none.
    func matches(_ values: [String]) -> Bool {
        switch self {
        case .absent: return values.isEmpty
        case .or(let conditions): return conditions.contains { $0.matches(values) }
        case .and(let conditions): return conditions.allSatisfy { $0.matches(values) }
        default: break
        }
        return values.contains { value in
            switch self {
            case .equalTo(let expected, let caseInsensitive):
                caseInsensitive ? value.lowercased() == expected.lowercased() : value == expected
            case .contains(let part): value.contains(part)
            case .matches(let regex): regex.wholeMatches(value)
            case .absent, .or, .and: false
            }
        }
    }

    static let operators = ["equalTo", "contains", "matches", "absent", "or", "and"]

    /// WireMock matchers that exist but are not implemented here.
    static let unsupported: [String: String] = Dictionary(
        uniqueKeysWithValues: [
            "doesNotMatch", "doesNotContain", "equalToJson", "matchesJsonPath", "matchesJsonSchema", "equalToXml",
            "matchesXPath", "before", "after", "equalToDateTime", "binaryEqualTo", "hasExactly", "includes", "not",
        ].map { ($0, "; use equalTo, contains, matches or absent") })

    /// Reads `{"equalTo": …}` and its siblings at `path`.
    static func parse(_ value: JSONValue, path: String) throws(StubMappingError) -> StubValueCondition {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(known: Set(operators + ["caseInsensitive"]), unsupported: unsupported)
        let given = operators.filter(reader.has)
        guard given.count == 1, let name = given.first else {
            throw StubMappingError(
                field: path, "must have exactly one of equalTo, contains, matches, absent, or and and")
        }
        if name == "or" || name == "and" {
            var conditions: [StubValueCondition] = []
            for (index, item) in (try reader.array(name) ?? []).enumerated() {
                conditions.append(try parse(item, path: reader.field(name) + "[\(index)]"))
            }
            guard !conditions.isEmpty else { throw StubMappingError(field: reader.field(name), "must not be empty") }
            return name == "or" ? .or(conditions) : .and(conditions)
        }
        let caseInsensitive = try reader.bool("caseInsensitive") ?? false
        if caseInsensitive, name != "equalTo" {
            throw StubMappingError(field: reader.field("caseInsensitive"), "goes only with equalTo")
        }
        switch name {
        case "equalTo":
            return .equalTo(try reader.string(name) ?? "", caseInsensitive: caseInsensitive)
        case "contains":
            return .contains(try reader.string(name) ?? "")
        case "matches":
            let pattern = try reader.string(name) ?? ""
            guard let regex = StubRegex(pattern) else {
                throw StubMappingError(field: reader.field(name), "is not a valid regular expression")
            }
            return .matches(regex)
        default:
            guard try reader.bool(name) == true else {
                throw StubMappingError(field: reader.field(name), "must be true")
            }
            return .absent
        }
    }
}
