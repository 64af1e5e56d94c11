/// An RFC 9457 problem details error, rendered as `application/problem+json`.
///
/// Throw it from a handler to answer with it. `code` is the stable UPPER_SNAKE string
/// clients and tests match on; `title` and `detail` are for people.
public struct ProblemDetails: HTTPResponseError, Equatable, Codable {
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String
    public var code: String

    public init(status: Int, code: String, detail: String, title: String? = nil, type: String = "about:blank") {
        self.type = type
        self.title = title ?? HTTPStatus.reasonPhrase(status)
        self.status = status
        self.detail = detail
        self.code = code
    }

    public static func badRequest(_ detail: String, code: String = "BAD_REQUEST") -> ProblemDetails {
        ProblemDetails(status: 400, code: code, detail: detail)
    }

    public static func notFound(_ detail: String = "No resource at this path.") -> ProblemDetails {
        ProblemDetails(status: 404, code: "NOT_FOUND", detail: detail)
    }

    /// The response carrying this problem.
    public var response: HTTPResponse {
        let bytes = (try? JSONCoding.encoder.encode(self)).map(Array.init) ?? Array(#"{"status":500}"#.utf8)
        return HTTPResponse(status: status, headers: ["Content-Type": MediaType.problemJSON], body: .bytes(bytes))
    }
}

/// An error that knows the response it becomes; handlers throw it to answer with it.
public protocol HTTPResponseError: Error, Sendable {
    var response: HTTPResponse { get }
}
