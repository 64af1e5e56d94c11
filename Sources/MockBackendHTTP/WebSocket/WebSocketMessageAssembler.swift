/// What a client said, a whole message at a time (RFC 6455 §5.4, §5.5).
public enum WebSocketInboundMessage: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    case close(WebSocketClosePayload)
}

/// Joins the fragments of data messages (RFC 6455 §5.4) and passes control frames, which
/// may come between fragments (§5.5), through at once.
///
/// Takes frames as `WebSocketFrameDecoder` gives them: that decoder has already enforced
/// every sequencing, size and UTF-8 rule, so joining cannot fail here.
public struct WebSocketMessageAssembler: Sendable {
    /// The opcode of the message being joined; nil between messages.
    private var opcode: WebSocketOpcode?
    private var fragments: [UInt8] = []

    public init() {}

    /// The message `frame` completes, if any.
    public mutating func append(_ frame: WebSocketFrame) -> WebSocketInboundMessage? {
        switch frame.opcode {
        case .ping:
            return .ping(frame.payload)
        case .pong:
            return .pong(frame.payload)
        case .close:
            // Already validated by the decoder; a malformed one never gets here.
            return .close((try? WebSocketClosePayload(parsing: frame.payload)) ?? WebSocketClosePayload(code: nil))
        case .text, .binary:
            guard !frame.fin else { return Self.message(frame.opcode, frame.payload) }
            opcode = frame.opcode
            fragments = frame.payload
            return nil
        case .continuation:
            fragments.append(contentsOf: frame.payload)
            guard frame.fin, let opcode else { return nil }
            defer {
                self.opcode = nil
                fragments = []
            }
            return Self.message(opcode, fragments)
        }
    }

    private static func message(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> WebSocketInboundMessage {
        opcode == .text ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload)
    }
}
