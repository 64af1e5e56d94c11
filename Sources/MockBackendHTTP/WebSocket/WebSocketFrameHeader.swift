/// The header of a frame (RFC 6455 §5.2), read and checked byte by byte: a client's (masked)
/// by a server, a server's (unmasked) by a client.
struct WebSocketFrameHeader: Sendable, Equatable {
    var fin: Bool
    var opcode: WebSocketOpcode
    /// Payload length in bytes.
    var length: Int
    /// The masking key (§5.3), in wire order; zeros on an unmasked frame.
    var mask: (UInt8, UInt8, UInt8, UInt8)
    /// Bytes the header takes on the wire: 2, 4 or 10, and 4 more with a mask.
    var size: Int

    /// What the decoder knows of the frames before this one.
    struct Context {
        /// The data opcode of the fragmented message in progress (§5.4); nil between messages.
        var messageOpcode: WebSocketOpcode?
        /// How many more payload bytes the message in progress may take.
        var messageBytesLeft: Int
        /// The limit, for the error's text.
        var maxMessageBytes: Int
        /// Whether frames must be masked (a client's, read by a server) or must not be (a
        /// server's, read by a client): §5.1.
        var masked = true
    }

    enum Outcome: Equatable {
        case needMore
        case header(WebSocketFrameHeader)
        case failure(WebSocketProtocolError)
    }

    static func == (lhs: WebSocketFrameHeader, rhs: WebSocketFrameHeader) -> Bool {
        lhs.fin == rhs.fin && lhs.opcode == rhs.opcode && lhs.length == rhs.length && lhs.size == rhs.size
            && lhs.mask == rhs.mask
    }

    /// Reads the header at the start of `bytes`. Each rule is checked as soon as the byte it
    /// looks at is there, in byte order, and depends on no later byte: a header split
    /// anywhere fails with the same error as the whole one, at the earliest byte possible.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, context: Context) -> Outcome {
        guard let first = bytes.first else { return .needMore }
        let fin = first & 0x80 != 0
        // §5.2: RSV1-3 MUST be 0 unless an extension defines them; none is negotiated.
        guard first & 0x70 == 0 else {
            return .failure(
                .protocolError("A frame has reserved bits set and no extension was negotiated (RFC 6455 §5.2)."))
        }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            return .failure(.protocolError("A frame has the reserved opcode \(first & 0x0F) (RFC 6455 §5.2)."))
        }
        if opcode.isControl {
            // §5.5: control frames MUST NOT be fragmented.
            guard fin else { return .failure(.protocolError("A control frame is fragmented (RFC 6455 §5.5).")) }
        } else if opcode == .continuation {
            // §5.4: a continuation frame continues a message begun by a text or binary frame.
            guard context.messageOpcode != nil else {
                return .failure(.protocolError("A continuation frame has no message to continue (RFC 6455 §5.4)."))
            }
        } else if context.messageOpcode != nil {
            // §5.4: the fragments of one message are not interleaved with another message.
            return .failure(.protocolError("A new message starts inside a fragmented one (RFC 6455 §5.4)."))
        }
        guard bytes.count >= 2 else { return .needMore }
        // §5.1, §5.3: a server MUST close the connection on a frame that is not masked, a
        // client on one that is.
        guard (bytes[1] & 0x80 != 0) == context.masked else {
            return .failure(
                .protocolError(
                    context.masked
                        ? "A client frame is not masked (RFC 6455 §5.1)." : "A server frame is masked (RFC 6455 §5.1).")
            )
        }
        let shortLength = Int(bytes[1] & 0x7F)
        // §5.5: control frames carry at most 125 bytes, so never an extended length.
        if opcode.isControl, shortLength > 125 {
            return .failure(.protocolError("A control frame has more than 125 bytes of payload (RFC 6455 §5.5)."))
        }
        let lengthBytes = shortLength == 127 ? 8 : shortLength == 126 ? 2 : 0
        // §5.2: with 8 bytes, the most significant bit MUST be 0.
        if lengthBytes == 8, bytes.count >= 3, bytes[2] & 0x80 != 0 {
            return .failure(.protocolError("A 64-bit payload length has its high bit set (RFC 6455 §5.2)."))
        }
        guard bytes.count >= 2 + lengthBytes else { return .needMore }
        var length = shortLength
        if lengthBytes > 0 {
            length = 0
            // With the high bit clear, 8 bytes fit an Int (64-bit on every supported platform).
            for index in 2..<(2 + lengthBytes) { length = length << 8 | Int(bytes[index]) }
            // §5.2: "the minimal number of bytes MUST be used to encode the length".
            let minimal = lengthBytes == 2 ? 126 : 65536
            guard length >= minimal else {
                return .failure(.protocolError("A payload length is not in its shortest form (RFC 6455 §5.2)."))
            }
        }
        // §10.4: a limit on message size; past it the connection fails with 1009 (§7.4.1).
        if !opcode.isControl, length > context.messageBytesLeft {
            return .failure(.messageTooBig(context.maxMessageBytes))
        }
        let size = 2 + lengthBytes + (context.masked ? 4 : 0)
        guard bytes.count >= size else { return .needMore }
        let key = 2 + lengthBytes
        let mask = context.masked ? (bytes[key], bytes[key + 1], bytes[key + 2], bytes[key + 3]) : (0, 0, 0, 0)
        return .header(WebSocketFrameHeader(fin: fin, opcode: opcode, length: length, mask: mask, size: size))
    }
}
