/// Frames as the server sends them (RFC 6455 §5.2): never masked (§5.1: a client fails the
/// connection on a masked server frame), reserved bits clear, the length in the shortest of
/// its three forms.
public enum WebSocketFrameEncoder {
    /// One frame, in one allocation. With `mask`, a client's frame instead (§5.3: the mask
    /// bit set, the key, the payload XORed with it).
    public static func frame(
        _ opcode: WebSocketOpcode, payload: some Collection<UInt8>, fin: Bool = true,
        mask: (UInt8, UInt8, UInt8, UInt8)? = nil
    ) -> [UInt8] {
        let count = payload.count
        let headerSize = (count < 126 ? 2 : count <= 0xFFFF ? 4 : 10) + (mask == nil ? 0 : 4)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize + count)
        bytes.append((fin ? 0x80 : 0) | opcode.rawValue)
        if count < 126 {
            bytes.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes.append(UInt8(count >> 8))
            bytes.append(UInt8(count & 0xFF))
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: count >> shift))
            }
        }
        guard let mask else {
            bytes.append(contentsOf: payload)
            return bytes
        }
        let key = [mask.0, mask.1, mask.2, mask.3]
        bytes += key
        for (index, byte) in payload.enumerated() { bytes.append(byte ^ key[index & 3]) }
        return bytes
    }

    /// A text message in one frame.
    public static func text(_ text: String) -> [UInt8] {
        frame(.text, payload: text.utf8)
    }

    /// A binary message in one frame.
    public static func binary(_ bytes: [UInt8]) -> [UInt8] {
        frame(.binary, payload: bytes)
    }

    /// A close frame (§5.5.1); the reason is cut to fit a control frame.
    public static func close(_ payload: WebSocketClosePayload) -> [UInt8] {
        frame(.close, payload: payload.bytes)
    }

    /// A ping (§5.5.2); the payload is cut to 125 bytes.
    public static func ping(_ payload: [UInt8] = []) -> [UInt8] {
        frame(.ping, payload: payload.prefix(125))
    }

    /// A pong (§5.5.3) answering a ping with `payload` (at most 125 bytes, as pings have).
    public static func pong(_ payload: [UInt8]) -> [UInt8] {
        frame(.pong, payload: payload.prefix(125))
    }
}

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

    /// A text message (opcode 1) whose UTF-8 bytes are at hand (encoded JSON): they must be
    /// valid UTF-8, as RFC 6455 §5.6 asks of a text message.
    public init(utf8Text bytes: [UInt8]) {
        frame = WebSocketFrameEncoder.frame(.text, payload: bytes)
    }

    /// A binary message (opcode 2).
    public init(binary: [UInt8]) {
        frame = WebSocketFrameEncoder.binary(binary)
    }
}

/// Several data messages framed once for any number of connections: their frames one after
/// the other, joined once. A connection without a shaper writes the joined bytes as one
/// part; one with a shaper gets each frame as a message of its own, so faults that count
/// messages count every one.
public struct PreparedWebSocketMessages: Sendable {
    /// Each message's frame, in order.
    public let frames: [[UInt8]]
    /// The frames one after the other.
    public let joined: [UInt8]

    public init(_ messages: [PreparedWebSocketMessage]) {
        frames = messages.map(\.frame)
        var joined: [UInt8] = []
        joined.reserveCapacity(frames.reduce(0) { $0 + $1.count })
        for frame in frames { joined += frame }
        self.joined = joined
    }
}
