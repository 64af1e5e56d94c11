import MockBackendAPI
import Mustache

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a render stopped: it would have written more than the budget allows.
struct TemplateRenderError: Error, Sendable, Equatable {
    var reason: String
}

/// What a render reads besides the request: the time (the simulation clock's, shifted by an
/// event's offset) and where random values come from.
struct TemplateRenderInput {
    var request: TemplateContent
    var now: Date
    var random: IdentifierSource
}

/// One context of a render, the object swift-mustache keeps on its stack: a value, the
/// context it was entered from (for `../` and for names found further out), and where an
/// `{{#each}}` is. Its transforms (`hN`) run the compiled template's instructions.
final class TemplateContext: MustacheTransformable {
    struct Iteration {
        var index: Int
        var count: Int
        var key: String?
        /// `as |item index|`: the names the block gives the item and its index or key.
        var aliases: [String: TemplateContent]
    }

    let content: TemplateContent
    let parent: TemplateContext?
    let iteration: Iteration?
    unowned let scope: TemplateScope

    init(content: TemplateContent, parent: TemplateContext?, iteration: Iteration? = nil, scope: TemplateScope) {
        self.content = content
        self.parent = parent
        self.iteration = iteration
        self.scope = scope
    }

    func transform(_ name: String) -> Any? {
        scope.run(name, in: self)
    }
}

/// One render of a compiled template: evaluates its instructions against the request, and
/// keeps the output within a budget — a template over a large body, or an `{{#each}}`
/// inside an `{{#each}}`, stops rather than write without end.
final class TemplateScope {
    /// The most a render may write.
    static let maximumOutputBytes = 16 * 1024 * 1024
    /// The most instructions a render may run.
    static let maximumSteps = 1_000_000

    private let instructions: [TemplateInstruction]
    private let input: TemplateRenderInput
    private var spent = 0
    private var steps = 0
    /// The request body as JSON, parsed at most once however often a template asks.
    private lazy var bodyJSON: JSONValue? = root.content.child("request")?.child("body")?.parsedJSON
    private(set) var failure: TemplateRenderError?
    private(set) var root: TemplateContext!

    init(instructions: [TemplateInstruction], input: TemplateRenderInput) {
        self.instructions = instructions
        self.input = input
        root = TemplateContext(content: input.request, parent: nil, scope: self)
    }

    /// Runs the instruction a transform names (`h12`): what swift-mustache writes or enters.
    func run(_ name: String, in context: TemplateContext) -> Any? {
        guard failure == nil, name.first == "h", let index = Int(name.dropFirst()), instructions.indices.contains(index)
        else { return nil }
        steps += 1
        guard steps <= Self.maximumSteps else {
            return fail("runs more than \(Self.maximumSteps) template steps")
        }
        switch instructions[index] {
        case .literal(let text):
            return charge(text)
        case .value(let expression):
            return charge(evaluate(expression, in: context)?.text ?? "")
        case .condition(let expression, let negated):
            return (evaluate(expression, in: context)?.isTruthy ?? false) != negated
        case .each(let expression, let blockParams, let bodyLength):
            // No items is nil, not an empty list: Mustache renders an `{{else}}` of an empty
            // list with the list as its context, where this context's transforms are not.
            guard let items = evaluate(expression, in: context)?.items, !items.isEmpty, fits(items.count * bodyLength)
            else { return nil }
            return items.enumerated().map { index, item in
                var aliases: [String: TemplateContent] = [:]
                if let name = blockParams.first { aliases[name] = item.value }
                if blockParams.count > 1 {
                    aliases[blockParams[1]] = item.key.map(TemplateContent.text) ?? .json(.integer(index))
                }
                return TemplateContext(
                    content: item.value, parent: context,
                    iteration: .init(index: index, count: items.count, key: item.key, aliases: aliases), scope: self)
            }
        case .section(let expression, let bodyLength):
            guard let value = evaluate(expression, in: context), value.isTruthy else { return nil }
            if case .json(.bool(let flag)) = value { return flag }
            if case .json(.array(let items)) = value {
                guard fits(items.count * bodyLength) else { return nil }
                return items.enumerated().map { index, item in
                    TemplateContext(
                        content: .json(item), parent: context,
                        iteration: .init(index: index, count: items.count, key: nil, aliases: [:]), scope: self)
                }
            }
            return TemplateContext(content: value, parent: context, scope: self)
        }
    }

    private func charge(_ text: String) -> String? {
        spend(text.utf8.count) ? text : nil
    }

    /// Whether `bytes` more could still be written; stops the render when not.
    private func fits(_ bytes: Int) -> Bool {
        guard spent + bytes <= Self.maximumOutputBytes else {
            fail("would write more than \(Self.maximumOutputBytes / 1024 / 1024) MiB")
            return false
        }
        return true
    }

    private func spend(_ bytes: Int) -> Bool {
        spent += bytes
        guard spent <= Self.maximumOutputBytes else {
            fail("would write more than \(Self.maximumOutputBytes / 1024 / 1024) MiB")
            return false
        }
        return true
    }

    @discardableResult
    private func fail(_ reason: String) -> Any? {
        if failure == nil { failure = TemplateRenderError(reason: reason) }
        return nil
    }

    // MARK: - Expressions

    func evaluate(_ expression: TemplateExpression, in context: TemplateContext) -> TemplateContent? {
        switch expression {
        case .literal(let value): .json(value)
        case .path(let path): resolve(path, in: context)
        case .call(let call): self.call(call, in: context)
        }
    }

    private func resolve(_ path: TemplatePath, in context: TemplateContext) -> TemplateContent? {
        var value: TemplateContent?
        var rest = path.segments[...]
        switch path.start {
        case .root:
            value = root.content
        case .data(let name):
            var current: TemplateContext? = context
            while let frame = current, frame.iteration == nil { current = frame.parent }
            guard let iteration = current?.iteration else { return nil }
            switch name {
            case "index": return .json(.integer(iteration.index))
            case "key": return iteration.key.map(TemplateContent.text)
            case "first": return .json(.bool(iteration.index == 0))
            default: return .json(.bool(iteration.index == iteration.count - 1))
            }
        case .context(let hops):
            var start = context
            for _ in 0..<hops { start = start.parent ?? start }
            guard let first = rest.first else { return start.content }
            // Mustache's lookup: the nearest context that has the first name.
            var current: TemplateContext? = start
            while let frame = current {
                if let alias = frame.iteration?.aliases[first] {
                    value = alias
                    break
                }
                if let found = frame.content.child(first) {
                    value = found
                    break
                }
                current = frame.parent
            }
            rest = rest.dropFirst()
        }
        for segment in rest {
            guard let next = value?.child(segment) else { return nil }
            value = next
        }
        return value
    }

    private func call(_ call: TemplateCall, in context: TemplateContext) -> TemplateContent? {
        func argument(_ name: String) -> TemplateContent? { call.hash[name].flatMap { evaluate($0, in: context) } }
        switch call.helper {
        case "eq":
            let left = evaluate(call.params[0], in: context)
            let right = evaluate(call.params[1], in: context)
            let equal: Bool
            switch (left, right) {
            case (nil, nil): equal = true
            case (nil, _), (_, nil): equal = false
            case (let left?, let right?):
                if let a = left.number, let b = right.number { equal = a == b } else { equal = left.text == right.text }
            }
            if call.hash["yes"] != nil || call.hash["no"] != nil {
                return equal ? argument("yes") : argument("no")
            }
            return .json(.bool(equal))
        case "jsonPath":
            guard let document = json(of: call.params[0], in: context),
                let text = evaluate(call.params[1], in: context)?.text,
                let query = try? JSONPathQuery(text),
                let found = query.select(in: document), found != .null
            else { return argument("default") }
            return .json(found)
        case "now":
            let offset = argument("offset").map(\.text)
            let text = TemplateNow.text(
                date: input.now, format: argument("format")?.text, offset: offset.flatMap(TemplateNow.Offset.init),
                timezone: argument("timezone")?.text)
            return text.map(TemplateContent.text)
        case "randomValue":
            let kind = argument("type").flatMap { TemplateRandom.Kind(rawValue: $0.text.uppercased()) } ?? .alphanumeric
            let length = argument("length").flatMap { Int($0.text) } ?? 36
            guard fits(min(max(length, 0), TemplateRandom.maximumLength)) else { return nil }
            return .text(
                TemplateRandom.value(
                    length: length, kind: kind, uppercase: argument("uppercase")?.isTruthy ?? false,
                    source: input.random))
        case "randomInt":
            let lower = argument("lower").flatMap { Int($0.text) } ?? Int(Int32.min)
            let upper = argument("upper").flatMap { Int($0.text) } ?? Int(Int32.max)
            return .json(.integer(TemplateRandom.integer(lower: lower, upper: upper, source: input.random)))
        default:
            return nil
        }
    }

    /// The JSON an argument holds; `request.body` is parsed once per render.
    private func json(of expression: TemplateExpression, in context: TemplateContext) -> JSONValue? {
        if case .path(let path) = expression, path.segments == ["request", "body"],
            path.start == .root || (path.start == .context(parentHops: 0) && context.content.child("request") == nil)
        {
            return bodyJSON
        }
        return evaluate(expression, in: context)?.parsedJSON
    }
}
