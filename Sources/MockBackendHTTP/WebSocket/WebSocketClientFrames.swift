/// Frames as a client sends them (RFC 6455 §5.2, §5.3): masked with a fresh random key
/// each, for a proxy's WebSocket to its upstream.
public enum WebSocketClientFrames {
    /// One frame, masked with `key` (random unless given).
    public static func frame(
        _ opcode: WebSocketOpcode, payload: some Collection<UInt8>, fin: Bool = true,
        key: (UInt8, UInt8, UInt8, UInt8)? = nil
    ) -> [UInt8] {
        let count = payload.count
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode.rawValue]
        // The mask bit set in the length byte (§5.2).
        if count < 126 {
            bytes.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            bytes += [0x80 | 126, UInt8(count >> 8), UInt8(count & 0xFF)]
        } else {
            bytes.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: count >> shift))
            }
        }
        let mask = key ?? (UInt8.random(in: 0...255), .random(in: 0...255), .random(in: 0...255), .random(in: 0...255))
        let keyBytes = [mask.0, mask.1, mask.2, mask.3]
        bytes += keyBytes
        bytes.reserveCapacity(bytes.count + count)
        for (index, byte) in payload.enumerated() { bytes.append(byte ^ keyBytes[index & 3]) }
        return bytes
    }

    /// A close frame (§5.5.1).
    public static func close(_ payload: WebSocketClosePayload) -> [UInt8] {
        frame(.close, payload: payload.bytes)
    }

    /// A pong answering a ping with `payload`.
    public static func pong(_ payload: [UInt8]) -> [UInt8] {
        frame(.pong, payload: payload.prefix(125))
    }
}
