/// One step of a connection's write path.
public enum OutboundSegment: Sendable, Equatable {
    /// Bytes to send, in one write call where the socket takes them.
    case bytes([UInt8])
    /// Send nothing for this long, then go on with what follows.
    case pause(milliseconds: Int)
    /// End the connection here; nothing after this is sent. With `reset`, the peer sees RST.
    case close(reset: Bool)
}

/// What a write handed to a `ResponseShaper` carries.
public enum ResponseWriteKind: Sendable, Equatable {
    /// The status line and header fields.
    case head
    /// Body bytes, already framed: one whole chunk on a chunked response.
    case body
    /// The end of the body: the last chunk on a chunked response, else no bytes.
    case end
}

/// Turns the bytes of one response into what the socket actually sees.
///
/// This is the seam for byte-level faults: a shaper may hold bytes back, split them,
/// insert pauses, replace them, or end the connection with FIN or RST. It is called on the
/// connection's queue, in write order, once per write; every response gets its own copy.
/// The server never coalesces a shaper's `.bytes` segments, so a split it makes is a
/// separate write call.
public protocol ResponseShaper: Sendable {
    mutating func shape(_ bytes: [UInt8], kind: ResponseWriteKind) -> [OutboundSegment]
}
