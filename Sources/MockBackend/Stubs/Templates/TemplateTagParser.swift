import MockBackendAPI

/// Why a template cannot be read, with where: what a mapping's refusal says.
struct TemplateSyntaxError: Error, Sendable, Equatable {
    var reason: String
}

/// Reads the inside of one Handlebars tag (`jsonPath request.body '$.id' default='x'`,
/// `each (jsonPath request.body '$.items') as |item|`) into a `TemplateTagContent`, by the
/// grammar of the Handlebars language guide: expressions separated by whitespace, string
/// literals in single or double quotes, numbers, `true`/`false`/`null`/`undefined`,
/// `key=value` hash arguments, `( )` subexpressions, paths whose segments are separated by
/// `.` or `/` and may be `[literal]`.
struct TemplateTagParser {
    private let characters: [Character]
    private var position = 0
    /// Subexpressions nest at most this deep, so a hostile tag cannot exhaust the stack.
    static let maximumDepth = 32

    init(_ text: Substring) {
        characters = Array(text)
    }

    /// The whole tag: fails on anything left over.
    static func parse(_ text: Substring) throws(TemplateSyntaxError) -> TemplateTagContent {
        var parser = TemplateTagParser(text)
        return try parser.content(depth: 0, closing: nil)
    }

    private mutating func content(depth: Int, closing: Character?) throws(TemplateSyntaxError) -> TemplateTagContent {
        guard depth <= Self.maximumDepth else {
            throw TemplateSyntaxError(reason: "nests subexpressions more than \(Self.maximumDepth) deep")
        }
        skipWhitespace()
        guard let head = try expression(depth: depth) else {
            throw TemplateSyntaxError(reason: "has an empty expression")
        }
        var params: [TemplateExpression] = []
        var hash: [String: TemplateExpression] = [:]
        var blockParams: [String] = []
        while true {
            skipWhitespace()
            guard let character = peek() else { break }
            if character == closing { break }
            if startsBlockParams() {
                blockParams = try readBlockParams()
                continue
            }
            if let key = hashKey() {
                guard hash[key] == nil else { throw TemplateSyntaxError(reason: "names the argument \(key) twice") }
                skipWhitespace()
                guard let value = try expression(depth: depth) else {
                    throw TemplateSyntaxError(reason: "has no value after \(key)=")
                }
                hash[key] = value
                continue
            }
            guard hash.isEmpty else {
                throw TemplateSyntaxError(reason: "has a positional argument after a key=value argument")
            }
            guard let param = try expression(depth: depth) else {
                throw TemplateSyntaxError(reason: "has an unexpected '\(character)'")
            }
            params.append(param)
        }
        if closing == nil, position < characters.count {
            throw TemplateSyntaxError(reason: "has an unexpected '\(characters[position])'")
        }
        return TemplateTagContent(head: head, params: params, hash: hash, blockParams: blockParams)
    }

    /// One expression, or nil where none starts.
    private mutating func expression(depth: Int) throws(TemplateSyntaxError) -> TemplateExpression? {
        guard let character = peek() else { return nil }
        switch character {
        case "(":
            position += 1
            let inner = try content(depth: depth + 1, closing: ")")
            guard peek() == ")" else { throw TemplateSyntaxError(reason: "has a '(' that is never closed") }
            position += 1
            guard case .path(let path) = inner.head, let name = path.helperName else {
                throw TemplateSyntaxError(reason: "has a subexpression that does not start with a helper's name")
            }
            guard inner.blockParams.isEmpty else {
                throw TemplateSyntaxError(reason: "has block parameters inside a subexpression")
            }
            return .call(TemplateCall(helper: name, params: inner.params, hash: inner.hash))
        case "'", "\"":
            return .literal(.string(try stringLiteral(quote: character)))
        case ")":
            throw TemplateSyntaxError(reason: "has a ')' without its '('")
        default:
            let word = try pathText()
            guard !word.isEmpty else { return nil }
            if let value = try literal(word) { return .literal(value) }
            return .path(try Self.path(word))
        }
    }

    private func literal(_ word: String) throws(TemplateSyntaxError) -> JSONValue? {
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null", "undefined": return .null
        default: break
        }
        let first = word.first!
        guard first.isNumber || (first == "-" && word.count > 1) else { return nil }
        if let integer = Int(word) { return .integer(integer) }
        if let number = Double(word), number.isFinite { return .number(number) }
        return nil
    }

    private mutating func stringLiteral(quote: Character) throws(TemplateSyntaxError) -> String {
        position += 1
        var text = ""
        while let character = peek() {
            position += 1
            if character == "\\", let next = peek(), next == quote {
                position += 1
                text.append(next)
            } else if character == quote {
                return text
            } else {
                text.append(character)
            }
        }
        throw TemplateSyntaxError(reason: "has a string that is never closed")
    }

    /// The text of a path or a bare word: up to whitespace, `=`, `(`, `)` or `|`, with
    /// `[...]` segments taken whole.
    private mutating func pathText() throws(TemplateSyntaxError) -> String {
        var text = ""
        while let character = peek() {
            if character == "[" {
                guard let end = characters[position...].firstIndex(of: "]") else {
                    throw TemplateSyntaxError(reason: "has a '[' that is never closed")
                }
                text += String(characters[position...end])
                position = end + 1
                continue
            }
            if character.isWhitespace || "=()|'\"".contains(character) { break }
            text.append(character)
            position += 1
        }
        return text
    }

    /// Splits a path into its start and segments.
    static func path(_ text: String) throws(TemplateSyntaxError) -> TemplatePath {
        var rest = Substring(text)
        var start = TemplatePath.Start.context(parentHops: 0)
        var hops = 0
        while rest.hasPrefix("../") {
            hops += 1
            rest = rest.dropFirst(3)
        }
        if rest == ".." {
            hops += 1
            rest = ""
        }
        if hops > 0 { start = .context(parentHops: hops) }
        if rest.hasPrefix("./") { rest = rest.dropFirst(2) }
        var segments = try splitSegments(rest, whole: text)
        if hops == 0, let first = segments.first {
            if first == "@root" {
                start = .root
                segments.removeFirst()
            } else if first.hasPrefix("@") {
                guard segments.count == 1, ["@index", "@key", "@first", "@last"].contains(first) else {
                    throw TemplateSyntaxError(
                        reason:
                            "names the data variable \(first), which is not one of @index, @key, @first, @last, @root")
                }
                return TemplatePath(start: .data(String(first.dropFirst())), segments: [], text: text)
            }
        }
        if segments.first == "this" || segments.first == "." { segments.removeFirst() }
        return TemplatePath(start: start, segments: segments, text: text)
    }

    private static func splitSegments(_ text: Substring, whole: String) throws(TemplateSyntaxError) -> [String] {
        guard !text.isEmpty else { return [] }
        if text == "." { return ["."] }
        var segments: [String] = []
        var current = ""
        var index = text.startIndex
        var literal = false
        while index < text.endIndex {
            let character = text[index]
            if character == "[", current.isEmpty {
                guard let end = text[index...].firstIndex(of: "]") else {
                    throw TemplateSyntaxError(reason: "has a '[' that is never closed")
                }
                current = String(text[text.index(after: index)..<end])
                literal = true
                index = text.index(after: end)
                continue
            }
            if character == "." || character == "/" {
                guard !current.isEmpty || literal else {
                    throw TemplateSyntaxError(reason: "has an empty segment in the path \(whole)")
                }
                segments.append(current)
                current = ""
                literal = false
            } else {
                guard !literal else { throw TemplateSyntaxError(reason: "has text after ']' in the path \(whole)") }
                current.append(character)
            }
            index = text.index(after: index)
        }
        guard !current.isEmpty || literal else {
            throw TemplateSyntaxError(reason: "has an empty segment in the path \(whole)")
        }
        segments.append(current)
        return segments
    }

    /// `key=` where a hash argument starts; the position moves past the `=` only then.
    private mutating func hashKey() -> String? {
        var end = position
        while end < characters.count,
            characters[end].isLetter || characters[end].isNumber || "_-".contains(characters[end])
        {
            end += 1
        }
        guard end > position, end < characters.count, characters[end] == "=" else { return nil }
        let key = String(characters[position..<end])
        position = end + 1
        return key
    }

    private func startsBlockParams() -> Bool {
        guard position + 2 < characters.count, characters[position] == "a", characters[position + 1] == "s" else {
            return false
        }
        var index = position + 2
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        return index > position + 2 && index < characters.count && characters[index] == "|"
    }

    private mutating func readBlockParams() throws(TemplateSyntaxError) -> [String] {
        position += 2
        skipWhitespace()
        position += 1
        guard let end = characters[position...].firstIndex(of: "|") else {
            throw TemplateSyntaxError(reason: "has an 'as |' that is never closed")
        }
        let names = String(characters[position..<end]).split(whereSeparator: \.isWhitespace).map(String.init)
        position = end + 1
        guard (1...2).contains(names.count) else {
            throw TemplateSyntaxError(reason: "needs one or two names between 'as |' and '|'")
        }
        return names
    }

    private func peek() -> Character? {
        position < characters.count ? characters[position] : nil
    }

    private mutating func skipWhitespace() {
        while let character = peek(), character.isWhitespace { position += 1 }
    }
}
