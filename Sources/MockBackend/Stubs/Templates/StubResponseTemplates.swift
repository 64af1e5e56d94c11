import MockBackendHTTP

/// The templated parts of a stub's response: its body (`body`, or `jsonBody` as JSON
/// text) and header values. An `sse` stub's event data are templates of its own
/// (`StubEventStream`).
struct StubResponseTemplates: Sendable {
    var body: ResponseTemplate?
    /// By the index of the field in the response's headers.
    var headers: [Int: ResponseTemplate]

    /// `transformers`: WireMock's list of response transformers; `response-template` is the
    /// one this server has.
    static func transformers(_ reader: MappingFieldReader) throws(StubMappingError) -> [String] {
        guard let items = try reader.array("transformers") else { return [] }
        var names: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let name) = item else {
                throw StubMappingError(field: reader.field("transformers") + "[\(index)]", "must be a string")
            }
            guard name == "response-template" else {
                throw StubMappingError(
                    field: reader.field("transformers") + "[\(index)]",
                    "names '\(name)', a transformer mockbackend does not have (it has response-template)")
            }
            names.append(name)
        }
        return names
    }

    /// Compiles what is a template; nil when nothing is.
    static func compile(
        body: String?, bodyField: String, headers: HTTPHeaders, headersField: String
    ) throws(StubMappingError) -> StubResponseTemplates? {
        var templates = StubResponseTemplates(body: nil, headers: [:])
        if let body {
            do {
                templates.body = try ResponseTemplate(body, field: bodyField)
            } catch {
                throw StubMappingError(field: bodyField, template: error)
            }
        }
        for (index, field) in headers.enumerated() {
            let path = headersField + "." + field.name
            do {
                templates.headers[index] = try ResponseTemplate(field.value, field: path)
            } catch {
                throw StubMappingError(field: path, template: error)
            }
        }
        return templates.body == nil && templates.headers.isEmpty ? nil : templates
    }

    /// The headers for one request.
    func render(_ headers: HTTPHeaders, _ input: TemplateRenderInput) throws(TemplateRenderError) -> HTTPHeaders {
        guard !self.headers.isEmpty else { return headers }
        var rendered = HTTPHeaders()
        for (index, field) in headers.enumerated() {
            guard let template = self.headers[index] else {
                rendered.add(field.name, field.value)
                continue
            }
            let value = try template.render(input)
            // RFC 9110 §5.5: a line end or NUL would end or forge a field.
            guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw TemplateRenderError(reason: "\(template.field) rendered a value with CR, LF or NUL")
            }
            rendered.add(field.name, value)
        }
        return rendered
    }

    /// The body for one request, or `bytes` as they are.
    func render(body bytes: [UInt8], _ input: TemplateRenderInput) throws(TemplateRenderError) -> [UInt8] {
        guard let body else { return bytes }
        return Array(try body.render(input).utf8)
    }
}
