/// Answers one request. Called on the request's connection queue; it must not block for
/// long (a slow answer is a streamed or shaped response, not a sleeping handler).
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) -> HTTPResponse
}
