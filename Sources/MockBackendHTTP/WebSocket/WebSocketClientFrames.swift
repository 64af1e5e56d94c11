/// Frames as a client sends them (RFC 6455 §5.2, §5.3): masked with a fresh random key
/// each, for a proxy's WebSocket to its upstream.
public enum WebSocketClientFrames {
    /// One frame, masked with `key` (random unless given).
    public static func frame(
        _ opcode: WebSocketOpcode, payload: some Collection<UInt8>, fin: Bool = true,
        key: (UInt8, UInt8, UInt8, UInt8)? = nil
    ) -> [UInt8] {
        let mask = key ?? (UInt8.random(in: 0...255), .random(in: 0...255), .random(in: 0...255), .random(in: 0...255))
        return WebSocketFrameEncoder.frame(opcode, payload: payload, fin: fin, mask: mask)
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
