/// One frame as a client sent it, payload unmasked (RFC 6455 §5.2). Reserved bits are
/// always clear and the mask is gone: `WebSocketFrameDecoder` refuses frames where either
/// differs, so neither is kept.
public struct WebSocketFrame: Sendable, Equatable, CustomStringConvertible {
    /// Whether this is the last frame of its message (always true for control frames).
    public var fin: Bool
    public var opcode: WebSocketOpcode
    public var payload: [UInt8]

    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    public var description: String { "\(opcode)\(fin ? "" : " (more)") \(payload.count) bytes" }
}
