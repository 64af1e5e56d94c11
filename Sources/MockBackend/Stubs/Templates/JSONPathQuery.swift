import Foundation
import MockBackendAPI

/// A JSONPath expression, in the part of Jayway's syntax (which WireMock's `jsonPath`
/// helper uses) that mappings use: `$`, `.name`, `['name']`, `[N]` (negative from the
/// end), `[N,M]`, `[start:end]`, `*`, `..name`, filters `[?(@.field op value)]` with `==`,
/// `!=`, `<`, `<=`, `>`, `>=`, `=~ /regex/` or a bare `[?(@.field)]` (on an array each
/// item is tested, on an object the object itself, as Jayway's), and `.length()`.
///
/// A definite path (names and single indexes only) selects one value; any other selects
/// the list of what it matched, as Jayway's does.
struct JSONPathQuery: Sendable, Equatable {
    indirect enum Step: Sendable, Equatable {
        case names([String])
        case indexes([Int])
        case slice(Int?, Int?)
        case wildcard
        case descendants(Step)
        case filter(Filter)
        case length
    }

    struct Filter: Sendable, Equatable {
        var field: [String]
        var comparison: (String, JSONValue)?
        /// `=~ /pattern/`: the field's text matches the whole pattern.
        var regex: StubRegex?

        static func == (lhs: Filter, rhs: Filter) -> Bool {
            lhs.field == rhs.field && lhs.comparison?.0 == rhs.comparison?.0 && lhs.comparison?.1 == rhs.comparison?.1
                && lhs.regex?.pattern == rhs.regex?.pattern
        }
    }

    let steps: [Step]

    var isDefinite: Bool {
        steps.allSatisfy { step in
            switch step {
            case .names(let names): names.count == 1
            case .indexes(let indexes): indexes.count == 1
            case .length: true
            default: false
            }
        }
    }

    init(_ text: String) throws(TemplateSyntaxError) {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if rest.first == "$" {
            rest = rest.dropFirst()
        } else if !rest.isEmpty, rest.first != "." && rest.first != "[" {
            rest = "." + rest
        }
        var steps: [Step] = []
        while !rest.isEmpty {
            if rest.hasPrefix("..") {
                rest = rest.dropFirst(2)
                if rest.first == "[" {
                    steps.append(.descendants(try Self.bracket(&rest, text)))
                } else {
                    let name = Self.name(&rest)
                    guard !name.isEmpty else {
                        throw TemplateSyntaxError(reason: "has a JSONPath '..' without a name: \(text)")
                    }
                    steps.append(.descendants(name == "*" ? .wildcard : .names([name])))
                }
            } else if rest.first == "." {
                rest = rest.dropFirst()
                let name = Self.name(&rest)
                if name == "length()" {
                    steps.append(.length)
                } else if name == "*" {
                    steps.append(.wildcard)
                } else {
                    guard !name.isEmpty else {
                        throw TemplateSyntaxError(reason: "has an empty JSONPath step: \(text)")
                    }
                    steps.append(.names([name]))
                }
            } else if rest.first == "[" {
                steps.append(try Self.bracket(&rest, text))
            } else {
                throw TemplateSyntaxError(reason: "is not a JSONPath this server reads: \(text)")
            }
        }
        self.steps = steps
    }

    private static func name(_ rest: inout Substring) -> String {
        var name = ""
        while let character = rest.first, character != "." && character != "[" {
            name.append(character)
            rest = rest.dropFirst()
            if name.hasSuffix("()") { break }
        }
        return name
    }

    private static func bracket(_ rest: inout Substring, _ text: String) throws(TemplateSyntaxError) -> Step {
        guard let end = closingBracket(rest) else {
            throw TemplateSyntaxError(reason: "has a JSONPath '[' that is never closed: \(text)")
        }
        let inner = rest[rest.index(after: rest.startIndex)..<end].trimmingCharacters(in: .whitespaces)
        rest = rest[rest.index(after: end)...]
        if inner == "*" { return .wildcard }
        if inner.hasPrefix("?(") && inner.hasSuffix(")") {
            return .filter(try filter(String(inner.dropFirst(2).dropLast()), text))
        }
        if inner.first == "'" || inner.first == "\"" {
            let names = inner.split(separator: ",").map {
                String($0.trimmingCharacters(in: .whitespaces).dropFirst().dropLast())
            }
            return .names(names)
        }
        if inner.contains(":") {
            let parts = inner.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw TemplateSyntaxError(reason: "has a JSONPath slice it cannot read: \(text)")
            }
            return .slice(
                Int(parts[0].trimmingCharacters(in: .whitespaces)), Int(parts[1].trimmingCharacters(in: .whitespaces)))
        }
        let indexes = inner.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !indexes.isEmpty, indexes.count == inner.split(separator: ",").count else {
            throw TemplateSyntaxError(reason: "has a JSONPath index it cannot read: [\(inner)] in \(text)")
        }
        return .indexes(indexes)
    }

    /// The `]` that closes the `[` at the start, past quoted text.
    private static func closingBracket(_ text: Substring) -> Substring.Index? {
        var quote: Character?
        var depth = 0
        for index in text.indices {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "[" {
                depth += 1
            } else if character == "]" {
                depth -= 1
                if depth == 0 { return index }
            }
        }
        return nil
    }

    private static func filter(_ text: String, _ whole: String) throws(TemplateSyntaxError) -> Filter {
        if let range = text.range(of: "=~") {
            let field = try fieldPath(text[..<range.lowerBound], whole)
            var literal = text[range.upperBound...].trimmingCharacters(in: .whitespaces)
            let caseInsensitive = literal.hasSuffix("/i")
            if caseInsensitive { literal.removeLast() }
            guard literal.count >= 2, literal.hasPrefix("/"), literal.hasSuffix("/"),
                let regex = StubRegex((caseInsensitive ? "(?i)" : "") + String(literal.dropFirst().dropLast()))
            else {
                throw TemplateSyntaxError(reason: "has a JSONPath =~ without a /regular expression/: \(whole)")
            }
            return Filter(field: field, comparison: nil, regex: regex)
        }
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            guard let range = text.range(of: op) else { continue }
            let field = try fieldPath(text[..<range.lowerBound], whole)
            let literal = text[range.upperBound...].trimmingCharacters(in: .whitespaces)
            return Filter(field: field, comparison: (op, try value(literal, whole)))
        }
        return Filter(field: try fieldPath(Substring(text), whole), comparison: nil)
    }

    private static func fieldPath(_ text: Substring, _ whole: String) throws(TemplateSyntaxError) -> [String] {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("@") else {
            throw TemplateSyntaxError(reason: "has a JSONPath filter that does not start with @: \(whole)")
        }
        // `@.name.inner`, `@['name']`, `@.['name']`.
        var names: [String] = []
        for part in trimmed.dropFirst().split(separator: ".") {
            var name = part.trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            if name.count >= 2, let quote = name.first, quote == "'" || quote == "\"", name.last == quote {
                name = String(name.dropFirst().dropLast())
            }
            names.append(name)
        }
        return names
    }

    private static func value(_ text: String, _ whole: String) throws(TemplateSyntaxError) -> JSONValue {
        if text.count >= 2, let first = text.first, first == "'" || first == "\"", text.last == first {
            return .string(String(text.dropFirst().dropLast()))
        }
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: break
        }
        if let integer = Int(text) { return .integer(integer) }
        if let number = Double(text) { return .number(number) }
        throw TemplateSyntaxError(reason: "has a JSONPath filter value it cannot read: \(text) in \(whole)")
    }

    /// What the path selects in `document`: one value for a definite path (nil when it
    /// matches nothing), else the list of matches.
    func select(in document: JSONValue) -> JSONValue? {
        var current = [document]
        for step in steps {
            current = current.flatMap { apply(step, to: $0) }
        }
        if isDefinite { return current.first }
        return .array(current)
    }

    private func apply(_ step: Step, to value: JSONValue) -> [JSONValue] {
        switch step {
        case .names(let names):
            guard case .object(let fields) = value else { return [] }
            return names.compactMap { fields[$0] }
        case .indexes(let indexes):
            guard case .array(let items) = value else { return [] }
            return indexes.compactMap { index in
                let resolved = index < 0 ? items.count + index : index
                return items.indices.contains(resolved) ? items[resolved] : nil
            }
        case .slice(let start, let end):
            guard case .array(let items) = value else { return [] }
            func clamp(_ index: Int) -> Int { min(max(index < 0 ? items.count + index : index, 0), items.count) }
            let from = clamp(start ?? 0)
            let to = clamp(end ?? items.count)
            return from < to ? Array(items[from..<to]) : []
        case .wildcard:
            switch value {
            case .array(let items): return items
            case .object(let fields): return fields.keys.sorted().map { fields[$0]! }
            default: return []
            }
        case .descendants(let inner):
            var found = apply(inner, to: value)
            switch value {
            case .array(let items): for item in items { found += apply(step, to: item) }
            case .object(let fields): for key in fields.keys.sorted() { found += apply(step, to: fields[key]!) }
            default: break
            }
            return found
        case .filter(let filter):
            let candidates: [JSONValue]
            switch value {
            case .array(let items): candidates = items
            case .object: candidates = [value]
            default: return []
            }
            return candidates.filter { filter.accepts($0) }
        case .length:
            switch value {
            case .array(let items): return [.integer(items.count)]
            case .object(let fields): return [.integer(fields.count)]
            case .string(let text): return [.integer(text.count)]
            default: return []
            }
        }
    }
}

extension JSONPathQuery.Filter {
    func accepts(_ value: JSONValue) -> Bool {
        var current: JSONValue? = value
        for name in field {
            guard case .object(let fields)? = current else { return false }
            current = fields[name]
        }
        guard let found = current else { return false }
        if let regex {
            return regex.wholeMatches(TemplateContent.json(found).text)
        }
        guard let (op, expected) = comparison else { return found != .null && found != .bool(false) }
        if let left = found.numeric, let right = expected.numeric {
            switch op {
            case "==": return left == right
            case "!=": return left != right
            case "<": return left < right
            case "<=": return left <= right
            case ">": return left > right
            default: return left >= right
            }
        }
        switch op {
        case "==": return found == expected
        case "!=": return found != expected
        default:
            guard case .string(let left) = found, case .string(let right) = expected else { return false }
            switch op {
            case "<": return left < right
            case "<=": return left <= right
            case ">": return left > right
            default: return left >= right
            }
        }
    }
}

extension JSONValue {
    fileprivate var numeric: Double? {
        switch self {
        case .integer(let number): Double(number)
        case .number(let number): number
        default: nil
        }
    }
}
