import MockBackendHTTP

/// Why a stub mapping was refused, naming the field: `request.urlPathPattern is not a
/// valid regular expression`. Thrown from a handler it answers 400 `INVALID_MAPPING`; from
/// `MappingFiles` it stops the start, prefixed with the file's name.
package struct StubMappingError: Error, Sendable, Equatable, CustomStringConvertible, HTTPResponseError {
    package var detail: String
    /// `INVALID_MAPPING`; for a template, `INVALID_TEMPLATE` or `UNSUPPORTED_TEMPLATE_HELPER`.
    package var code = "INVALID_MAPPING"

    package init(_ detail: String) {
        self.detail = detail
    }

    /// `field` (a dotted path such as `response.sse.events[2].delayMs`) and what is wrong.
    init(field: String, _ reason: String, code: String = "INVALID_MAPPING") {
        detail = "\(field) \(reason)"
        self.code = code
    }

    /// A template's refusal, naming the field and the helper or what is broken.
    init(field: String, template error: TemplateCompileError) {
        switch error {
        case .unsupportedHelper(let name):
            self.init(
                field: field,
                "uses the template helper '\(name)', which mockbackend does not render (it renders "
                    + TemplateHelpers.supportedList + ")",
                code: "UNSUPPORTED_TEMPLATE_HELPER")
        case .syntax(let reason):
            self.init(field: field, "is not a template mockbackend reads: \(reason)", code: "INVALID_TEMPLATE")
        }
    }

    /// Whether a template caused it.
    var isTemplateError: Bool { code != "INVALID_MAPPING" }

    package var description: String { detail }

    package var problem: ProblemDetails {
        ProblemDetails(status: 400, code: code, detail: detail)
    }

    package var response: HTTPResponse { problem.response }
}
