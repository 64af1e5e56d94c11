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

/// The opcodes of RFC 6455 §5.2 (§11.8). The others (3-7 for data, B-F for control) are
/// reserved; a frame carrying one fails the connection with 1002 (§5.2).
public enum WebSocketOpcode: UInt8, Sendable, Equatable, CustomStringConvertible {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Control frames (close, ping, pong) have the high bit of the opcode set (§5.5).
    public var isControl: Bool { rawValue & 0x8 != 0 }

    public var description: String {
        switch self {
        case .continuation: "continuation"
        case .text: "text"
        case .binary: "binary"
        case .close: "close"
        case .ping: "ping"
        case .pong: "pong"
        }
    }
}
