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
