/// Wraps request handling: it may answer early without calling `next`, change the request
/// on the way in, or change the response on the way out.
public protocol HTTPMiddleware: Sendable {
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse
}
