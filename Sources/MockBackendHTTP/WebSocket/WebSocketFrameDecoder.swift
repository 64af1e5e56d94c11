/// An incremental decoder of the frames a client sends (RFC 6455 §5). It takes bytes,
/// never a socket, and gives the same events however the input is split.
///
/// It enforces every rule of §5 a server must: masking (§5.1), reserved bits and opcodes
/// (§5.2), control frames short and unfragmented (§5.5), message sequencing (§5.4), text
/// that is UTF-8 across fragments (§5.6, §8.1), the close payload (§5.5.1, §7.4) and a
/// limit on message size (§10.4). A broken rule ends the input with one `.failure` carrying
/// the close code to fail the connection with; every later byte is ignored. Rules are
/// checked as bytes arrive, not when a frame or message ends: a text frame whose bytes so
/// far cannot be UTF-8 fails before the rest of it arrives (fail fast, §8.1).
///
/// After a close frame the decoder stops too: nothing a client sends after it counts (§5.5.1).
///
/// In the `.client` role it reads a server's frames instead (a proxy's upstream WebSocket):
/// the same rules, but frames must not be masked.
public struct WebSocketFrameDecoder: Sendable {
    /// Which side reads: a server reads masked client frames, a client unmasked server ones.
    public enum Role: Sendable {
        case server
        case client
    }

    /// What the decoder found in the bytes fed so far.
    public enum Event: Sendable, Equatable {
        case frame(WebSocketFrame)
        /// The input broke the protocol; nothing follows.
        case failure(WebSocketProtocolError)
    }

    private enum State {
        case header
        case payload(WebSocketFrameHeader)
        /// A close frame arrived, or the input failed: later bytes are dropped.
        case finished
    }

    /// Largest message accepted, all fragments together.
    public let maxMessageBytes: Int
    public let role: Role
    private var state = State.header
    /// Header bytes received while the header is incomplete (at most 14).
    private var headerBytes: [UInt8] = []
    /// The unmasked payload of the frame being read.
    private var payload: [UInt8] = []
    /// The data opcode of the fragmented message in progress; nil between messages.
    private var messageOpcode: WebSocketOpcode?
    /// Payload bytes of the message in progress, frames read so far included.
    private var messageBytes = 0
    /// Validates a text message from its first byte to its last, across frames.
    private var utf8 = UTF8Validator()

    public init(maxMessageBytes: Int = 1 << 20, role: Role = .server) {
        self.maxMessageBytes = max(0, maxMessageBytes)
        self.role = role
    }

    /// Whether a close frame or a failure has ended the input.
    public var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Feeds the next bytes and returns every event they complete.
    public mutating func feed<C: Collection>(_ bytes: C) -> [Event] where C.Element == UInt8 {
        if let events = bytes.withContiguousStorageIfAvailable({ feed(buffer: $0) }) { return events }
        return Array(bytes).withUnsafeBufferPointer { feed(buffer: $0) }
    }

    /// Feeds bytes read from a socket.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Event] {
        feed(buffer: bytes.assumingMemoryBound(to: UInt8.self))
    }

    private mutating func feed(buffer input: UnsafeBufferPointer<UInt8>) -> [Event] {
        var events: [Event] = []
        var index = 0
        while index < input.count || isPayloadComplete {
            switch state {
            case .finished:
                return events
            case .header:
                // Up to a whole header more; what the header turns out not to need goes back.
                let before = headerBytes.count
                let take = min(14 - before, input.count - index)
                headerBytes.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<(index + take)]))
                let context = WebSocketFrameHeader.Context(
                    messageOpcode: messageOpcode, messageBytesLeft: maxMessageBytes - messageBytes,
                    maxMessageBytes: maxMessageBytes, masked: role == .server)
                switch headerBytes.withUnsafeBufferPointer({ WebSocketFrameHeader.parse($0, context: context) }) {
                case .needMore:
                    index += take
                case .failure(let error):
                    events.append(fail(error))
                    return events
                case .header(let header):
                    index += header.size - before
                    headerBytes.removeAll(keepingCapacity: true)
                    if !header.opcode.isControl { messageBytes += header.length }
                    state = .payload(header)
                }
            case .payload(let header):
                let take = min(header.length - payload.count, input.count - index)
                if take > 0 {
                    let start = payload.count
                    payload.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<(index + take)]))
                    index += take
                    if role == .server { unmask(from: start, with: header.mask) }
                    if isText(header), !utf8.consume(payload[start...]) {
                        events.append(fail(.invalidUTF8("A text message is not UTF-8 (RFC 6455 §8.1).")))
                        return events
                    }
                }
                guard payload.count == header.length else { continue }
                switch completeFrame(header) {
                case .frame(let frame): events.append(.frame(frame))
                case .failure(let error):
                    events.append(fail(error))
                    return events
                }
            }
        }
        return events
    }

    /// Whether a frame's payload is all here (a zero-length one needs no input at all).
    private var isPayloadComplete: Bool {
        if case .payload(let header) = state { return payload.count == header.length }
        return false
    }

    /// Whether the frame being read belongs to a text message.
    private func isText(_ header: WebSocketFrameHeader) -> Bool {
        header.opcode == .text || (header.opcode == .continuation && messageOpcode == .text)
    }

    /// §5.3: payload byte i is XORed with byte i mod 4 of the masking key.
    private mutating func unmask(from start: Int, with mask: (UInt8, UInt8, UInt8, UInt8)) {
        let key = [mask.0, mask.1, mask.2, mask.3]
        payload.withUnsafeMutableBufferPointer { bytes in
            for position in start..<bytes.count { bytes[position] ^= key[position & 3] }
        }
    }

    /// The frame whose payload is complete, after the checks that need all of it.
    private mutating func completeFrame(_ header: WebSocketFrameHeader) -> Event {
        let frame = WebSocketFrame(fin: header.fin, opcode: header.opcode, payload: payload)
        payload = []
        state = .header
        switch header.opcode {
        case .close:
            do throws(WebSocketProtocolError) {
                _ = try WebSocketClosePayload(parsing: frame.payload)
            } catch {
                return .failure(error)
            }
            state = .finished
        case .ping, .pong:
            break
        case .text, .binary, .continuation:
            if header.fin {
                // §8.1: a message that ends inside a character is not UTF-8.
                if isText(header), !utf8.isComplete {
                    return .failure(.invalidUTF8("A text message ends inside a UTF-8 character (RFC 6455 §8.1)."))
                }
                messageOpcode = nil
                messageBytes = 0
                utf8 = UTF8Validator()
            } else if header.opcode != .continuation {
                messageOpcode = header.opcode
            }
        }
        return .frame(frame)
    }

    private mutating func fail(_ error: WebSocketProtocolError) -> Event {
        state = .finished
        headerBytes = []
        payload = []
        return .failure(error)
    }
}

/// Why the frames a client sent cannot be accepted, with the close code the connection is
/// failed with (RFC 6455 §7.1.7, §7.4.1): 1002 for framing and sequencing, 1007 for text
/// that is not UTF-8, 1009 for a message over the limit.
public struct WebSocketProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The code of the close frame the server sends.
    public var closeCode: WebSocketCloseCode
    /// What was wrong, for people and logs; sent as the close frame's reason, cut to fit.
    public var detail: String

    public init(closeCode: WebSocketCloseCode, detail: String) {
        self.closeCode = closeCode
        self.detail = detail
    }

    public var description: String { "\(closeCode.rawValue): \(detail)" }

    static func protocolError(_ detail: String) -> WebSocketProtocolError {
        WebSocketProtocolError(closeCode: .protocolError, detail: detail)
    }

    static func invalidUTF8(_ detail: String) -> WebSocketProtocolError {
        WebSocketProtocolError(closeCode: .invalidPayload, detail: detail)
    }

    static func messageTooBig(_ limit: Int) -> WebSocketProtocolError {
        WebSocketProtocolError(closeCode: .messageTooBig, detail: "A message is larger than \(limit) bytes.")
    }
}
