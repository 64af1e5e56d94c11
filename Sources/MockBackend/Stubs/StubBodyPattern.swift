import MockBackendAPI

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One of a mapping's `bodyPatterns`, WireMock's request body matchers: the body as UTF-8
/// text against `equalTo` (+`caseInsensitive`), `contains`, `matches` or `absent`; as
/// JSON against `equalToJson` (+`ignoreArrayOrder`, `ignoreExtraElements`, as WireMock
/// names them) or `matchesJsonPath` (the path finds something; or, as
/// `{"expression", <matcher>}`, what it finds matches); or `or` / `and` of patterns. Every
/// pattern of a mapping must hold.
indirect enum StubBodyPattern: Sendable {
    case text(StubValueCondition)
    case equalToJson(JSONValue, ignoreArrayOrder: Bool, ignoreExtraElements: Bool)
    case matchesJsonPath(JSONPathQuery, StubValueCondition?)
    case or([StubBodyPattern])
    case and([StubBodyPattern])

    func matches(_ body: [UInt8]) -> Bool {
        switch self {
        case .matchesJsonPath(let query, let condition):
            guard let document = try? JSONDecoder().decode(JSONValue.self, from: Data(body)),
                let found = query.select(in: document)
            else { return false }
            if case .array(let items) = found, items.isEmpty, !query.isDefinite { return false }
            guard let condition else { return true }
            return condition.matches([TemplateContent.json(found).text])
        case .or(let patterns):
            return patterns.contains { $0.matches(body) }
        case .and(let patterns):
            return patterns.allSatisfy { $0.matches(body) }
        case .text(let condition):
            return condition.matches(body.isEmpty ? [] : [String(decoding: body, as: UTF8.self)])
        case .equalToJson(let expected, let ignoreArrayOrder, let ignoreExtraElements):
            guard let actual = try? JSONDecoder().decode(JSONValue.self, from: Data(body)) else { return false }
            return Self.json(actual, matches: expected, ignoreArrayOrder, ignoreExtraElements)
        }
    }

    /// Whether `actual` is `expected`, arrays in any order with `ignoreArrayOrder`, and
    /// objects (and arrays) with more than `expected` has with `ignoreExtraElements`.
    private static func json(_ actual: JSONValue, matches expected: JSONValue, _ anyOrder: Bool, _ extra: Bool) -> Bool
    {
        switch (actual, expected) {
        case (.object(let have), .object(let want)):
            guard extra || have.count == want.count else { return false }
            return want.allSatisfy { key, value in have[key].map { json($0, matches: value, anyOrder, extra) } ?? false
            }
        case (.array(let have), .array(let want)):
            guard extra || have.count == want.count else { return false }
            if !anyOrder {
                guard have.count >= want.count else { return false }
                return zip(have, want).allSatisfy { json($0, matches: $1, anyOrder, extra) }
            }
            var unused = have
            for item in want {
                guard let index = unused.firstIndex(where: { json($0, matches: item, anyOrder, extra) }) else {
                    return false
                }
                unused.remove(at: index)
            }
            return true
        case (.integer(let have), .number(let want)): return Double(have) == want
        case (.number(let have), .integer(let want)): return have == Double(want)
        default: return actual == expected
        }
    }

    static let jsonOptions = ["ignoreArrayOrder", "ignoreExtraElements"]

    /// Reads one pattern at `path`.
    static func parse(_ value: JSONValue, path: String) throws(StubMappingError) -> StubBodyPattern {
        let reader = try MappingFieldReader(value, path: path)
        for name in ["or", "and"] where reader.has(name) {
            try reader.refuseUnknownKeys(known: [name])
            var patterns: [StubBodyPattern] = []
            for (index, item) in (try reader.array(name) ?? []).enumerated() {
                patterns.append(try parse(item, path: reader.field(name) + "[\(index)]"))
            }
            guard !patterns.isEmpty else { throw StubMappingError(field: reader.field(name), "must not be empty") }
            return name == "or" ? .or(patterns) : .and(patterns)
        }
        if reader.has("matchesJsonPath") { return try matchesJsonPath(reader) }
        guard reader.has("equalToJson") else { return .text(try StubValueCondition.parse(value, path: path)) }
        try reader.refuseUnknownKeys(known: Set(["equalToJson"] + jsonOptions))
        var expected = reader.value("equalToJson") ?? .null
        // WireMock takes the JSON inline or as a string holding it.
        if case .string(let text) = expected {
            guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                throw StubMappingError(field: reader.field("equalToJson"), "is a string that holds no JSON")
            }
            expected = parsed
        }
        return .equalToJson(
            expected, ignoreArrayOrder: try reader.bool("ignoreArrayOrder") ?? false,
            ignoreExtraElements: try reader.bool("ignoreExtraElements") ?? false)
    }

    /// `{"matchesJsonPath": "$.x"}` or `{"matchesJsonPath": {"expression": "$.x", "equalTo": …}}`.
    private static func matchesJsonPath(_ reader: MappingFieldReader) throws(StubMappingError) -> StubBodyPattern {
        try reader.refuseUnknownKeys(known: ["matchesJsonPath"])
        let field = reader.field("matchesJsonPath")
        var expression: String
        var condition: StubValueCondition?
        switch reader.value("matchesJsonPath") {
        case .string(let text)?:
            expression = text
        case .object(var fields)?:
            guard case .string(let text)? = fields.removeValue(forKey: "expression") else {
                throw StubMappingError(field: field + ".expression", "is required (a JSONPath)")
            }
            expression = text
            condition = try StubValueCondition.parse(.object(fields), path: field)
        default:
            throw StubMappingError(field: field, "must be a JSONPath, or an object with expression and a matcher")
        }
        do {
            return .matchesJsonPath(try JSONPathQuery(expression), condition)
        } catch {
            throw StubMappingError(field: field, error.reason)
        }
    }
}
