/// A data message framed once for any number of connections (a broadcast): the frame is
/// built here, and every connection sends the same bytes without copying them. Server
/// frames are never masked (RFC 6455 §5.1), so one frame fits every connection.
public struct PreparedWebSocketMessage: Sendable, Equatable {
    /// The whole frame: FIN set, unmasked.
    public let frame: [UInt8]

    /// A text message (opcode 1).
    public init(text: String) {
        frame = WebSocketFrameEncoder.text(text)
    }

    /// A binary message (opcode 2).
    public init(binary: [UInt8]) {
        frame = WebSocketFrameEncoder.binary(binary)
    }
}
