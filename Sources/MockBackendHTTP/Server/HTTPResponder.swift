/// Answers one request. Called on the request's connection queue; it must not block for
/// long (a slow answer is a streamed or shaped response, not a sleeping handler).
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) -> HTTPResponse

    /// Whether the body of the request with this head should be answered as it arrives
    /// rather than read whole first: the request then reaches `respond` with its head
    /// alone and its body in `bodyStream`, without the body size limit. Asked only for a
    /// body not already received whole.
    func streamsBody(of head: HTTPRequest) -> Bool
}

extension HTTPResponder {
    /// Bodies are read whole.
    public func streamsBody(of head: HTTPRequest) -> Bool { false }
}
