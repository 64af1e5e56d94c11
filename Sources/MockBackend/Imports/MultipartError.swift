import MockBackendHTTP

/// Why a `multipart/form-data` body was refused; `detail` says it, for a 400 problem.
package struct MultipartError: Error, Sendable, Equatable, CustomStringConvertible, HTTPResponseError {
    /// What was wrong, for people.
    package var detail: String

    package init(detail: String) { self.detail = detail }

    package var description: String { detail }

    /// The problem a handler answers with: 400, code `MALFORMED_MULTIPART`.
    package var problem: ProblemDetails { .badRequest(detail, code: "MALFORMED_MULTIPART") }

    package var response: HTTPResponse { problem.response }

    static func noDelimiter(_ boundary: String) -> MultipartError {
        MultipartError(
            detail: "The body holds no delimiter line \"--\(boundary)\"; it is not multipart with this boundary.")
    }

    static func unexpectedEnd(_ boundary: String) -> MultipartError {
        MultipartError(detail: "The body ended before the close delimiter \"--\(boundary)--\".")
    }

    static func malformedDelimiterLine(_ boundary: String) -> MultipartError {
        MultipartError(
            detail: "A delimiter \"--\(boundary)\" is followed by more than spaces or tabs and CRLF "
                + "(RFC 2046 §5.1.1; lines end in CRLF).")
    }

    static func headersTooLong(_ limit: Int) -> MultipartError {
        MultipartError(detail: "A part's header section is longer than \(limit) bytes.")
    }

    static func missingColon(_ line: String) -> MultipartError {
        MultipartError(detail: "A part header line has no colon: \"\(line)\".")
    }

    static func invalidFieldName(_ name: String) -> MultipartError {
        MultipartError(detail: "A part header name \"\(name)\" is empty or not printable ASCII (RFC 5322 §3.6.8).")
    }

    static let foldedLine = MultipartError(
        detail: "A part header line starts with whitespace; folded lines (RFC 5322 §2.2.3) are not accepted.")

    static func controlCharacter(_ name: String) -> MultipartError {
        MultipartError(
            detail: "The part header \"\(name)\" contains a control character; header lines end in CRLF.")
    }

    static func tooManyParts(_ limit: Int) -> MultipartError {
        MultipartError(detail: "The body has more than \(limit) parts.")
    }
}
