/// Why a request could not be parsed, with the status it is answered with.
///
/// After any of these the framing of the rest of the byte stream is in doubt, so the
/// connection answers and then closes (RFC 9112 §11.2: never guess where the next request starts).
package struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status the error is answered with.
    package var status: Int
    /// A stable UPPER_SNAKE code for the problem+json body.
    package var code: String
    /// What was wrong, for people.
    package var detail: String

    package init(status: Int, code: String, detail: String) {
        self.status = status
        self.code = code
        self.detail = detail
    }

    package var description: String { "\(status) \(code): \(detail)" }

    /// The problem details the connection answers with.
    package var problem: ProblemDetails { ProblemDetails(status: status, code: code, detail: detail) }

    static func malformedRequestLine(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 400, code: "MALFORMED_REQUEST_LINE", detail: detail)
    }

    static func malformedHeader(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 400, code: "MALFORMED_HEADER", detail: detail)
    }

    static let obsoleteLineFolding = HTTPParseError(
        status: 400, code: "OBSOLETE_LINE_FOLDING",
        detail: "A header line starts with whitespace (obs-fold, RFC 9112 §5.2); it is not accepted.")

    static let missingHost = HTTPParseError(
        status: 400, code: "MISSING_HOST", detail: "An HTTP/1.1 request needs exactly one Host header (RFC 9112 §3.2).")

    static let conflictingFraming = HTTPParseError(
        status: 400, code: "CONFLICTING_FRAMING",
        detail: "Content-Length and Transfer-Encoding together are refused (RFC 9112 §6.1: request smuggling).")

    static let conflictingContentLength = HTTPParseError(
        status: 400, code: "CONFLICTING_CONTENT_LENGTH", detail: "Content-Length values differ (RFC 9112 §6.3).")

    static func invalidContentLength(_ value: String) -> HTTPParseError {
        HTTPParseError(
            status: 400, code: "INVALID_CONTENT_LENGTH", detail: "Content-Length \"\(value)\" is not a number.")
    }

    static func invalidChunk(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 400, code: "INVALID_CHUNK", detail: detail)
    }

    static let transferEncodingInHTTP10 = HTTPParseError(
        status: 400, code: "TRANSFER_ENCODING_IN_HTTP_1_0",
        detail: "Transfer-Encoding in an HTTP/1.0 request is refused (RFC 9112 §6.1).")

    static func unsupportedTransferCoding(_ value: String) -> HTTPParseError {
        HTTPParseError(
            status: 501, code: "UNSUPPORTED_TRANSFER_CODING",
            detail: "Transfer-Encoding \"\(value)\" is not supported; only chunked is.")
    }

    static func transferCodingNotChunked(_ value: String) -> HTTPParseError {
        HTTPParseError(
            status: 400, code: "CHUNKED_NOT_FINAL",
            detail: "Transfer-Encoding \"\(value)\" does not end in chunked (RFC 9112 §6.3).")
    }

    static func uriTooLong(_ limit: Int) -> HTTPParseError {
        HTTPParseError(status: 414, code: "URI_TOO_LONG", detail: "The request target is longer than \(limit) bytes.")
    }

    static func headersTooLarge(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 431, code: "HEADERS_TOO_LARGE", detail: detail)
    }

    static func payloadTooLarge(_ limit: Int) -> HTTPParseError {
        HTTPParseError(
            status: 413, code: "PAYLOAD_TOO_LARGE", detail: "The request body is larger than \(limit) bytes.")
    }

    static func versionNotSupported(_ version: String) -> HTTPParseError {
        HTTPParseError(
            status: 505, code: "HTTP_VERSION_NOT_SUPPORTED", detail: "\(version) is not supported; use HTTP/1.1.")
    }
}
