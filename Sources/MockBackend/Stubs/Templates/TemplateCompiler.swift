/// Why a template was refused when its mapping loaded.
enum TemplateCompileError: Error, Sendable, Equatable {
    /// The text is not a template this server reads: an unbalanced block, a partial…
    case syntax(String)
    /// A helper this server does not render, by name.
    case unsupportedHelper(String)
}

/// Compiles Handlebars, as WireMock's templates use it, to a Mustache template that
/// swift-mustache renders: the block structure and iteration become Mustache's, every
/// expression becomes a transform on the current context (`{{hN(.)}}`)
/// whose `TemplateInstruction` this server evaluates (`TemplateScope`).
///
/// What Handlebars adds to Mustache and is read here: helpers with arguments and
/// subexpressions, `{{else}}` and `{{else if …}}`, `{{#each … as |item index|}}`, `@index`,
/// `@key`, `@first`, `@last`, `@root`, `../`, `[literal]` segments, `{{~ ~}}` whitespace
/// control, `{{!-- --}}` comments and `\{{` escapes. Partials, decorators, raw blocks and
/// delimiter changes are refused: a template reads its mapping and the request, nothing
/// else. Nothing is HTML-escaped, `{{x}}` writes what `{{{x}}}` does, as in WireMock 3
/// (whose standalone server turns Handlebars' escaping off): bodies are JSON, not HTML.
struct TemplateCompiler {
    /// Blocks nest at most this deep (swift-mustache parses sections recursively).
    static let maximumNesting = 64

    /// The Mustache text and the instructions its transforms index; nil for text without
    /// a tag, which needs no rendering.
    static func compile(_ text: String) throws(TemplateCompileError) -> (
        mustache: String, instructions: [TemplateInstruction]
    )? {
        guard text.contains("{{") else { return nil }
        var compiler = TemplateCompiler(text: text)
        let nodes = try compiler.parse()
        var emitter = Emitter()
        let mustache = try emitter.emit(nodes)
        return (mustache, emitter.instructions)
    }

    // MARK: - Reading tags into a tree

    private indirect enum Node {
        case text(String)
        case literal(String)
        case value(TemplateTagContent)
        case block(Block)
        case inverted(TemplateTagContent, body: [Node], otherwise: [Node]?)
    }

    private struct Block {
        var content: TemplateTagContent
        var body: [Node]
        var inverse: [Node]?
    }

    /// An open block while its body is read: its branches (`{{else …}}` starts one).
    private struct Frame {
        var name: String
        var opener: String
        var inverted: Bool
        var branches: [(content: TemplateTagContent?, nodes: [Node])]
    }

    private let text: String
    private var frames: [Frame] = []
    private var top: [Node] = []
    private var stripNextText = false

    private init(text: String) {
        self.text = text
    }

    private mutating func parse() throws(TemplateCompileError) -> [Node] {
        let bytes = Array(text.utf8)
        var index = 0
        var textStart = 0
        while index + 1 < bytes.count {
            guard bytes[index] == UInt8(ascii: "{"), bytes[index + 1] == UInt8(ascii: "{") else {
                index += 1
                continue
            }
            if index > 0, bytes[index - 1] == UInt8(ascii: "\\") {
                // `\{{name}}` is the text `{{name}}`.
                appendText(bytes[textStart..<(index - 1)])
                guard let end = Self.find(close: [UInt8]("}}".utf8), in: bytes, from: index + 2) else {
                    throw .syntax(at(index, "has an escaped '\\{{' that is never closed"))
                }
                append(.literal(String(decoding: bytes[index..<(end + 2)], as: UTF8.self)))
                index = end + 2
                textStart = index
                continue
            }
            appendText(bytes[textStart..<index])
            index = try tag(at: index, in: bytes)
            textStart = index
        }
        appendText(bytes[textStart...])
        if let open = frames.last {
            throw .syntax("has \(open.opener) that is never closed (no {{/\(open.name)}})")
        }
        return top
    }

    /// Reads the tag starting at `start`; returns where the text after it starts.
    private mutating func tag(at start: Int, in bytes: [UInt8]) throws(TemplateCompileError) -> Int {
        var contentStart = start + 2
        var triple = false
        if contentStart < bytes.count, bytes[contentStart] == UInt8(ascii: "{") {
            if contentStart + 1 < bytes.count, bytes[contentStart + 1] == UInt8(ascii: "{") {
                throw .syntax(at(start, "has a raw block ({{{{ }}}}), which is not supported"))
            }
            triple = true
            contentStart += 1
        }
        let comment =
            !triple && bytes[contentStart...].starts(with: "!".utf8)
            || bytes[contentStart...].starts(with: "~!".utf8)
        let longComment =
            comment
            && (bytes[contentStart...].starts(with: "!--".utf8)
                || bytes[contentStart...].starts(with: "~!--".utf8))
        let closer: [UInt8] = triple ? Array("}}}".utf8) : longComment ? Array("--}}".utf8) : Array("}}".utf8)
        guard let end = Self.find(close: closer, in: bytes, from: contentStart, quoted: !comment) else {
            throw .syntax(at(start, "has a tag that is never closed"))
        }
        let after = end + closer.count
        var inner = Substring(String(decoding: bytes[contentStart..<end], as: UTF8.self))
        var stripLeft = false
        var stripRight = false
        if inner.first == "~" {
            stripLeft = true
            inner = inner.dropFirst()
        }
        if inner.last == "~" {
            stripRight = true
            inner = inner.dropLast()
        }
        if stripLeft { trimTrailingWhitespace() }
        defer { stripNextText = stripRight }
        if comment { return after }
        try handle(tag: inner, triple: triple, start: start)
        return after
    }

    private mutating func handle(tag inner: Substring, triple: Bool, start: Int) throws(TemplateCompileError) {
        let trimmed = inner.drop(while: \.isWhitespace)
        guard let sigil = trimmed.first else { throw .syntax(at(start, "has an empty tag {{}}")) }
        if triple {
            append(.value(try content(trimmed, start)))
            return
        }
        switch sigil {
        case "#":
            let rest = trimmed.dropFirst()
            if rest.first == ">" || rest.first == "*" {
                throw .syntax(
                    at(start, "has a partial block or decorator ({{#\(rest.first!)…}}), which is not supported"))
            }
            let content = try content(rest, start)
            try open(content, inverted: false, opener: "{{#\(rest.trimmingSpaces)}}", start: start)
        case "^":
            let rest = trimmed.dropFirst()
            if rest.allSatisfy(\.isWhitespace) {
                try elseBranch(nil, start: start)
            } else {
                try open(try content(rest, start), inverted: true, opener: "{{^\(rest.trimmingSpaces)}}", start: start)
            }
        case "/":
            try close(trimmed.dropFirst().trimmingSpaces, start: start)
        case ">":
            throw .syntax(
                at(
                    start,
                    "has a partial ({{>…}}), which is not supported: a template reads only its mapping and the request")
            )
        case "*":
            throw .syntax(at(start, "has a decorator ({{*…}}), which is not supported"))
        case "=":
            throw .syntax(at(start, "changes the delimiters ({{=…=}}), which Handlebars does not support"))
        case "&":
            append(.value(try content(trimmed.dropFirst(), start)))
        default:
            if trimmed.trimmingSpaces == "else" {
                try elseBranch(nil, start: start)
            } else if trimmed.hasPrefix("else"), trimmed.dropFirst(4).first?.isWhitespace == true {
                try elseBranch(try content(trimmed.dropFirst(4), start), start: start)
            } else {
                append(.value(try content(trimmed, start)))
            }
        }
    }

    private func content(_ text: Substring, _ start: Int) throws(TemplateCompileError) -> TemplateTagContent {
        do {
            return try TemplateTagParser.parse(text)
        } catch {
            throw .syntax(at(start, "{{\(text.trimmingSpaces)}} \(error.reason)"))
        }
    }

    private mutating func open(
        _ content: TemplateTagContent, inverted: Bool, opener: String, start: Int
    ) throws(TemplateCompileError) {
        guard frames.count < Self.maximumNesting else {
            throw .syntax(at(start, "nests blocks more than \(Self.maximumNesting) deep"))
        }
        let name: String
        switch content.head {
        case .path(let path): name = path.text
        default: throw .syntax(at(start, "has \(opener), which does not start with a helper's name or a path"))
        }
        frames.append(Frame(name: name, opener: opener, inverted: inverted, branches: [(content, [])]))
    }

    private mutating func elseBranch(_ content: TemplateTagContent?, start: Int) throws(TemplateCompileError) {
        guard var frame = frames.popLast() else { throw .syntax(at(start, "has {{else}} outside a block")) }
        guard frame.branches.last?.content != nil || frame.branches.count == 1 else {
            throw .syntax(at(start, "has a second {{else}} in \(frame.opener)"))
        }
        if content != nil, frame.inverted {
            throw .syntax(at(start, "has {{else …}} in \(frame.opener), which takes a plain {{else}} only"))
        }
        frame.branches.append((content, []))
        frames.append(frame)
    }

    private mutating func close(_ name: Substring, start: Int) throws(TemplateCompileError) {
        guard let frame = frames.popLast() else {
            throw .syntax(at(start, "has {{/\(name)}} without an open block"))
        }
        guard frame.name == name else {
            throw .syntax(at(start, "closes \(frame.opener) with {{/\(name)}}"))
        }
        var branches = frame.branches
        var inverse: [Node]?
        if branches.count > 1, branches.last!.content == nil {
            inverse = branches.removeLast().nodes
        }
        while branches.count > 1 {
            let branch = branches.removeLast()
            inverse = [.block(Block(content: branch.content!, body: branch.nodes, inverse: inverse))]
        }
        let first = branches[0]
        if frame.inverted {
            append(.inverted(first.content!, body: first.nodes, otherwise: inverse))
        } else {
            append(.block(Block(content: first.content!, body: first.nodes, inverse: inverse)))
        }
    }

    private mutating func append(_ node: Node) {
        if frames.isEmpty {
            top.append(node)
        } else {
            frames[frames.count - 1].branches[frames[frames.count - 1].branches.count - 1].nodes.append(node)
        }
    }

    private mutating func appendText(_ bytes: ArraySlice<UInt8>) {
        var text = String(decoding: bytes, as: UTF8.self)
        if stripNextText {
            text = String(text.drop(while: \.isWhitespace))
            stripNextText = false
        }
        guard !text.isEmpty else { return }
        append(.text(text))
    }

    /// `{{~`: the whitespace before the tag goes.
    private mutating func trimTrailingWhitespace() {
        func trim(_ nodes: inout [Node]) {
            guard case .text(let text) = nodes.last else { return }
            let kept = String(text.reversed().drop(while: \.isWhitespace).reversed())
            nodes.removeLast()
            if !kept.isEmpty { nodes.append(.text(kept)) }
        }
        if frames.isEmpty {
            trim(&top)
        } else {
            trim(&frames[frames.count - 1].branches[frames[frames.count - 1].branches.count - 1].nodes)
        }
    }

    /// The first `close` at or after `from`, outside quotes when `quoted`.
    private static func find(close: [UInt8], in bytes: [UInt8], from: Int, quoted: Bool = false) -> Int? {
        var index = from
        var quote: UInt8?
        while index + close.count <= bytes.count {
            let byte = bytes[index]
            if quoted, let open = quote {
                if byte == open { quote = nil }
            } else if quoted, byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
            } else if bytes[index..<(index + close.count)].elementsEqual(close) {
                return index
            }
            index += 1
        }
        return nil
    }

    /// A message with the line and column of `offset` (a byte offset into the text).
    private func at(_ offset: Int, _ message: String) -> String {
        let prefix = text.utf8.prefix(offset)
        let line = prefix.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        let column = prefix.reversed().prefix { $0 != UInt8(ascii: "\n") }.count + 1
        return "\(message) (line \(line), column \(column))"
    }

    // MARK: - Writing Mustache

    /// Writes the tree as Mustache and collects the instructions its transforms index.
    ///
    /// The template's text goes in instructions too (`.literal`): the Mustache text is tags
    /// only, so swift-mustache's parser (slow on megabytes of text) reads little, and no
    /// line is ever "standalone" — Mustache drops a line that holds only a block tag;
    /// Handlebars.java, which WireMock uses, keeps it unless told to pretty-print, and so
    /// does this server.
    private struct Emitter {
        var instructions: [TemplateInstruction] = []

        mutating func emit(_ nodes: [Node]) throws(TemplateCompileError) -> String {
            var out = ""
            for node in nodes {
                switch node {
                case .text(let text), .literal(let text):
                    out += "{{{\(add(.literal(text)))}}}"
                case .value(let content):
                    out += "{{{\(add(.value(try Self.valueExpression(content))))}}}"
                case .block(let block):
                    let name = add(try Self.blockInstruction(block.content, body: block.body))
                    out += "{{#\(name)}}\(try emit(block.body)){{/\(name)}}"
                    if let inverse = block.inverse {
                        out += "{{^\(name)}}\(try emit(inverse)){{/\(name)}}"
                    }
                case .inverted(let content, let body, let otherwise):
                    let name = add(.section(try Self.sectionExpression(content), bodyLength: Self.textLength(body)))
                    out += "{{^\(name)}}\(try emit(body)){{/\(name)}}"
                    if let otherwise {
                        out += "{{#\(name)}}\(try emit(otherwise)){{/\(name)}}"
                    }
                }
            }
            return out
        }

        /// Adds an instruction; the transform that runs it.
        private mutating func add(_ instruction: TemplateInstruction) -> String {
            instructions.append(instruction)
            return "h\(instructions.count - 1)(.)"
        }

        private static func blockInstruction(
            _ content: TemplateTagContent, body: [Node]
        ) throws(TemplateCompileError) -> TemplateInstruction {
            guard case .path(let path) = content.head else { throw .syntax("a block must start with a name") }
            let name = path.helperName
            switch name {
            case "if", "unless":
                guard content.params.count == 1, content.hash.keys.allSatisfy({ $0 == "includeZero" }) else {
                    throw .syntax("{{#\(name!)}} takes one value")
                }
                return .condition(try checked(content.params[0]), negated: name == "unless")
            case "each":
                guard content.params.count == 1, content.hash.isEmpty else {
                    throw .syntax("{{#each}} takes one value")
                }
                return .each(
                    try checked(content.params[0]), blockParams: content.blockParams, bodyLength: textLength(body))
            case "eq":
                guard content.params.count == 2, content.hash.isEmpty else { throw .syntax("{{#eq}} takes two values") }
                return .condition(
                    .call(TemplateCall(helper: "eq", params: try content.params.map(checked), hash: [:])),
                    negated: false)
            default:
                return .section(try sectionExpression(content), bodyLength: textLength(body))
            }
        }

        /// A plain `{{#path}}`: Mustache's section.
        private static func sectionExpression(_ content: TemplateTagContent) throws(TemplateCompileError)
            -> TemplateExpression
        {
            guard case .path(let path) = content.head else { throw .syntax("a block must start with a name") }
            if let name = path.helperName,
                TemplateHelpers.valueHelpers.contains(name) || TemplateHelpers.knownElsewhere.contains(name)
                    || !content.params.isEmpty || !content.hash.isEmpty
            {
                if TemplateHelpers.valueHelpers.contains(name) {
                    throw .syntax("{{#\(name)}} is not a block helper")
                }
                throw .unsupportedHelper(name)
            }
            guard content.params.isEmpty, content.hash.isEmpty else { throw .unsupportedHelper(path.text) }
            return .path(path)
        }

        /// What `{{…}}` shows: a helper's result, a path's value or a literal.
        static func valueExpression(_ content: TemplateTagContent) throws(TemplateCompileError) -> TemplateExpression {
            switch content.head {
            case .literal(let value):
                guard content.params.isEmpty, content.hash.isEmpty else {
                    throw .syntax("a literal cannot take arguments")
                }
                return .literal(value)
            case .call:
                throw .syntax("a tag cannot start with a subexpression")
            case .path(let path):
                if let name = path.helperName, TemplateHelpers.valueHelpers.contains(name) {
                    return try checked(.call(TemplateCall(helper: name, params: content.params, hash: content.hash)))
                }
                if let name = path.helperName, TemplateHelpers.blockHelpers.contains(name) {
                    throw .syntax("{{\(name)}} is a block helper: write {{#\(name) …}}…{{/\(name)}}")
                }
                if let name = path.helperName, TemplateHelpers.knownElsewhere.contains(name) {
                    throw .unsupportedHelper(name)
                }
                guard content.params.isEmpty, content.hash.isEmpty else { throw .unsupportedHelper(path.text) }
                guard content.blockParams.isEmpty else { throw .syntax("only {{#each}} takes 'as |…|'") }
                return .path(path)
            }
        }

        /// Checks every helper call inside an expression: known, and given what it takes.
        static func checked(_ expression: TemplateExpression) throws(TemplateCompileError) -> TemplateExpression {
            guard case .call(let call) = expression else { return expression }
            guard TemplateHelpers.valueHelpers.contains(call.helper) else {
                throw .unsupportedHelper(call.helper)
            }
            let count = TemplateHelpers.positionalCount[call.helper] ?? 0
            guard call.params.count == count else {
                throw .syntax(
                    "\(call.helper) takes \(count) positional argument\(count == 1 ? "" : "s"), not \(call.params.count)"
                )
            }
            let allowed = TemplateHelpers.hashArguments[call.helper] ?? []
            if let unknown = call.hash.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw .syntax("\(call.helper) has no argument \(unknown)")
            }
            for parameter in call.params { _ = try checked(parameter) }
            for value in call.hash.values { _ = try checked(value) }
            if call.helper == "randomValue", case .literal(.string(let type))? = call.hash["type"],
                TemplateRandom.Kind(rawValue: type) == nil
            {
                throw .syntax(
                    "randomValue has the type \(type), not one of \(TemplateRandom.Kind.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            if call.helper == "now", case .literal(.string(let offset))? = call.hash["offset"],
                TemplateNow.Offset(offset) == nil
            {
                throw .syntax(
                    "now has the offset '\(offset)', not '<amount> <unit>' (seconds … years) or 'now +<amount> <unit>'")
            }
            if call.helper == "now", case .literal(.string(let zone))? = call.hash["timezone"],
                !TemplateNow.knows(timezone: zone)
            {
                throw .syntax("now has the timezone '\(zone)', which names no time zone")
            }
            if call.helper == "jsonPath", case .literal(.string(let path)) = call.params[1] {
                do {
                    _ = try JSONPathQuery(path)
                } catch {
                    throw .syntax("jsonPath's path \(error.reason)")
                }
            }
            return expression
        }

        /// The text the nodes write at least (their literal text, nested blocks included).
        static func textLength(_ nodes: [Node]) -> Int {
            nodes.reduce(0) { total, node in
                switch node {
                case .text(let text): total + text.utf8.count
                case .literal(let text): total + text.utf8.count
                case .value: total
                case .block(let block): total + textLength(block.body) + textLength(block.inverse ?? [])
                case .inverted(_, let body, let otherwise): total + textLength(body) + textLength(otherwise ?? [])
                }
            }
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        let start = drop(while: \.isWhitespace)
        var end = start.endIndex
        while end > start.startIndex, start[start.index(before: end)].isWhitespace { end = start.index(before: end) }
        return start[..<end]
    }
}
