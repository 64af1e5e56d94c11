/// The payload of a close frame (RFC 6455 §5.5.1): nothing, or a two-byte status code
/// followed by a UTF-8 reason.
public struct WebSocketClosePayload: Sendable, Equatable {
    /// The status code; nil for an empty payload (reported as 1005, §7.1.5).
    public var code: WebSocketCloseCode?
    public var reason: String

    /// Most bytes a reason may take: a control frame's payload is at most 125 bytes (§5.5),
    /// two of them the code.
    public static let maxReasonBytes = 123

    public init(code: WebSocketCloseCode?, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// Reads a received close payload. §5.5.1: a body is a code and then a reason, so a
    /// lone byte is malformed (1002); §7.4: a code that must not be sent fails the
    /// connection (1002); §5.5.1, §8.1: the reason must be UTF-8 (1007).
    public init(parsing payload: [UInt8]) throws(WebSocketProtocolError) {
        guard !payload.isEmpty else {
            self.init(code: nil)
            return
        }
        guard payload.count >= 2 else {
            throw .protocolError("A close frame has a 1-byte payload; a status code takes 2 (RFC 6455 §5.5.1).")
        }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else {
            throw .protocolError("Close code \(code.rawValue) must not be sent (RFC 6455 §7.4).")
        }
        let reasonBytes = payload[2...]
        var validator = UTF8Validator()
        guard validator.consume(reasonBytes), validator.isComplete else {
            throw .invalidUTF8("The close reason is not UTF-8 (RFC 6455 §5.5.1).")
        }
        self.init(code: code, reason: String(decoding: reasonBytes, as: UTF8.self))
    }

    /// The payload as sent: the code big-endian and the reason, cut at a character boundary
    /// to `maxReasonBytes`. Empty without a code (a reason needs one).
    public var bytes: [UInt8] {
        guard let code else { return [] }
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > Self.maxReasonBytes {
            var end = Self.maxReasonBytes
            // Back up over continuation bytes (10xxxxxx) to the start of the cut character.
            while end > 0, reasonBytes[end] & 0xC0 == 0x80 { end -= 1 }
            reasonBytes.removeSubrange(end...)
        }
        return [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + reasonBytes
    }
}
