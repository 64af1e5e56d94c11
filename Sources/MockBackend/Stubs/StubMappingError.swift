import MockBackendHTTP

/// Why a stub mapping was refused, naming the field: `request.urlPathPattern is not a
/// valid regular expression`. Thrown from a handler it answers 400 `INVALID_MAPPING`; from
/// `MappingFiles` it stops the start, prefixed with the file's name.
package struct StubMappingError: Error, Sendable, Equatable, CustomStringConvertible, HTTPResponseError {
    package var detail: String

    package init(_ detail: String) {
        self.detail = detail
    }

    /// `field` (a dotted path such as `response.sse.events[2].delayMs`) and what is wrong.
    init(field: String, _ reason: String) {
        detail = "\(field) \(reason)"
    }

    package var description: String { detail }

    package var problem: ProblemDetails {
        ProblemDetails(status: 400, code: "INVALID_MAPPING", detail: detail)
    }

    package var response: HTTPResponse { problem.response }
}
