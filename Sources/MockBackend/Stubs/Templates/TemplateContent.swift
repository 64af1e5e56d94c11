import MockBackendAPI

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value a template reads: the request model's fields, JSON from a body, a helper's
/// result. How it reads as text, as a condition, by index and in an `{{#each}}` follows
/// WireMock's request model.
indirect enum TemplateContent: Sendable, Equatable {
    case json(JSONValue)
    /// A field a request may carry more than once (a query parameter, a header, a cookie):
    /// it reads as its first value; `.N` / `.[N]`, `first` and `last` pick one (a negative
    /// index counts from the one before the last, as WireMock's does); `{{#each}}` visits all.
    case values([String])
    /// `request.path`: the path as text, its segments by index (`request.path.[0]`), a
    /// `urlPathTemplate`'s variables by name (`request.path.contactId`).
    case path(String, segments: [String], variables: [String: String] = [:])
    /// Named fields: the request model and its groups; `caseInsensitive` for headers.
    case fields([String: TemplateContent], caseInsensitive: Bool)

    static func text(_ text: String) -> TemplateContent { .json(.string(text)) }

    /// The field or item `name`, if there is one.
    func child(_ name: String) -> TemplateContent? {
        switch self {
        case .json(.object(let fields)):
            return fields[name].map(TemplateContent.json)
        case .json(.array(let items)):
            return Self.index(name, count: items.count).map { .json(items[$0]) }
        case .json:
            return nil
        case .values(let values):
            switch name {
            case "first": return values.first.map(TemplateContent.text)
            case "last": return values.last.map(TemplateContent.text)
            default:
                return Self.index(name, count: values.count, negativeFromBeforeLast: true).map { .text(values[$0]) }
            }
        case .path(_, let segments, let variables):
            if let value = variables[name] { return .text(value) }
            return Self.index(name, count: segments.count).map { .text(segments[$0]) }
        case .fields(let fields, let caseInsensitive):
            if let value = fields[name] { return value }
            guard caseInsensitive else { return nil }
            let lowered = name.lowercased()
            return fields.first { $0.key.lowercased() == lowered }?.value
        }
    }

    private static func index(_ name: String, count: Int, negativeFromBeforeLast: Bool = false) -> Int? {
        guard let number = Int(name) else { return nil }
        let index = number >= 0 ? number : (negativeFromBeforeLast ? count - 1 + number : count + number)
        return (0..<count).contains(index) ? index : nil
    }

    /// What `{{value}}` writes.
    var text: String {
        switch self {
        case .json(.string(let text)): text
        case .json(.null): ""
        case .json(.bool(let flag)): flag ? "true" : "false"
        case .json(.integer(let number)): String(number)
        case .json(.number(let number)): Self.text(of: number)
        case .json(let value): String(decoding: (try? Self.encoder.encode(value)) ?? Data(), as: UTF8.self)
        case .values(let values): values.first ?? ""
        case .path(let path, _, _): path
        case .fields(let fields, _):
            String(
                decoding: (try? Self.encoder.encode(JSONValue.object(fields.mapValues { .string($0.text) }))) ?? Data(),
                as: UTF8.self)
        }
    }

    private static func text(of number: Double) -> String {
        if number.rounded() == number, abs(number) < 1e15 { return String(Int(number)) }
        return String(number)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Handlebars' truth: false, null, 0, "" and an empty list are false.
    var isTruthy: Bool {
        switch self {
        case .json(.null): false
        case .json(.bool(let flag)): flag
        case .json(.integer(let number)): number != 0
        case .json(.number(let number)): number != 0
        case .json(.string(let text)): !text.isEmpty
        case .json(.array(let items)): !items.isEmpty
        case .json(.object): true
        case .values(let values): !values.isEmpty
        case .path, .fields: true
        }
    }

    /// What `{{#each}}` visits, each with its key where it has one; nil for a single value.
    var items: [(key: String?, value: TemplateContent)]? {
        switch self {
        case .json(.array(let items)): items.map { (nil, .json($0)) }
        case .json(.object(let fields)): fields.keys.sorted().map { ($0, .json(fields[$0]!)) }
        case .json: nil
        case .values(let values): values.map { (nil, .text($0)) }
        case .path(_, let segments, _): segments.map { (nil, .text($0)) }
        case .fields(let fields, _): fields.keys.sorted().map { ($0, fields[$0]!) }
        }
    }

    /// The number it holds, for comparing `1` with `'1'` or `1.0`.
    var number: Double? {
        switch self {
        case .json(.integer(let number)): Double(number)
        case .json(.number(let number)): number
        default: nil
        }
    }

    /// The JSON text it holds, parsed: what `jsonPath` reads.
    var parsedJSON: JSONValue? {
        switch self {
        case .json(.string(let text)), .path(let text, _, _): Self.parse(text)
        case .values(let values): values.first.flatMap(Self.parse)
        case .json(let value): value
        case .fields: nil
        }
    }

    private static func parse(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }
}
