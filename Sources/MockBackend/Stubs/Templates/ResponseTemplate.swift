import Mustache

/// A response part written from a Handlebars template (`"transformers":
/// ["response-template"]` or `--global-response-templating`): compiled when its mapping
/// loads, rendered for each request.
struct ResponseTemplate: Sendable, Equatable {
    private let mustache: MustacheTemplate
    /// The template as written.
    let source: String
    private let instructions: [TemplateInstruction]
    /// The field it came from (`response.headers.X-Id`), for messages.
    let field: String

    /// The template for `text`, or nil when the text has no tag and is written as it stands.
    init?(_ text: String, field: String) throws(TemplateCompileError) {
        guard let compiled = try TemplateCompiler.compile(text) else { return nil }
        do {
            mustache = try MustacheTemplate(string: compiled.mustache)
        } catch {
            throw .syntax("cannot be compiled (\(error))")
        }
        instructions = compiled.instructions
        self.field = field
        source = text
    }

    static func == (lhs: ResponseTemplate, rhs: ResponseTemplate) -> Bool {
        lhs.source == rhs.source && lhs.field == rhs.field
    }

    /// The text for one request.
    func render(_ input: TemplateRenderInput) throws(TemplateRenderError) -> String {
        let scope = TemplateScope(instructions: instructions, input: input)
        let text = mustache.render(scope.root as Any)
        if let failure = scope.failure {
            throw TemplateRenderError(reason: "\(field) \(failure.reason)")
        }
        return text
    }
}
