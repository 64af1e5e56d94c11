/// A workflow API call that did not answer what it should: its status, and the `code` of
/// the problem body (RFC 9457) when there is one — `UNAUTHORIZED` (401, a missing or wrong
/// API key), `SESSION_NOT_FOUND` (404), `SESSION_STATE_CONFLICT` (409).
public struct WorkflowRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request, as `METHOD path`.
    public var request: String
    public var status: Int
    /// The problem's `code`, if the body had one.
    public var code: String?

    public init(request: String, status: Int, code: String?) {
        self.request = request
        self.status = status
        self.code = code
    }

    public var description: String { "\(request) answered \(status)" + (code.map { " \($0)" } ?? "") }
}
