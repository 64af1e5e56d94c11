import MockBackendHTTP

/// Applies a fault to the bytes of one response on their way to the socket: the byte-level
/// half of the fault layer. Route handlers know nothing of it.
///
/// Body writes arrive framed (one whole chunk on HTTP/1.1); behaviours that work on the
/// event text take the chunk apart and frame it again. An SSE event is a body write that
/// holds a `data:` field; comments (greetings, heartbeats) are not events.
struct FaultShaper: ResponseShaper {
    enum Behavior: Sendable {
        case delay(ms: Int)
        case latency(ms: Int)
        case dropAfterEvents(Int, reset: Bool)
        case dropAfterBytes(Int, reset: Bool)
        case cutInsideEvent(event: Int, afterBytes: Int, reset: Bool)
        case fragmentBytes(size: Int, delayMs: Int)
        case fragmentCRLF(delayMs: Int)
        case fragmentUTF8(delayMs: Int)
        case stall(afterEvents: Int, ms: Int)
        case mute(ms: Int)
        case buffer(bytes: Int)
        case reset
        case emptyResponse
        case malformedChunk
        case randomDataThenClose
        case hangBeforeHead
    }

    /// A day: "forever" for a stall or a hang without a limit.
    static let forever = 86_400_000

    let behavior: Behavior
    private var events = 0
    private var bodyBytes = 0
    private var closed = false
    private var stalled = false
    private var held: [UInt8] = []
    private var muteEnds: ContinuousClock.Instant?

    init(_ behavior: Behavior) {
        self.behavior = behavior
    }

    mutating func shape(_ bytes: [UInt8], kind: ResponseWriteKind) -> [OutboundSegment] {
        guard !closed else { return [] }
        let segments = apply(bytes, kind: kind)
        if segments.contains(where: { if case .close = $0 { true } else { false } }) { closed = true }
        return segments
    }

    private mutating func apply(_ bytes: [UInt8], kind: ResponseWriteKind) -> [OutboundSegment] {
        let isEvent = kind == .body && Self.holdsEvent(bytes)
        switch behavior {
        case .delay(let ms):
            return kind == .head ? [.pause(milliseconds: ms), .bytes(bytes)] : [.bytes(bytes)]
        case .latency(let ms):
            return bytes.isEmpty ? [] : [.pause(milliseconds: ms), .bytes(bytes)]
        case .dropAfterEvents(let limit, let reset):
            if kind == .head { return limit == 0 ? [.bytes(bytes), .close(reset: reset)] : [.bytes(bytes)] }
            guard isEvent else { return [.bytes(bytes)] }
            events += 1
            return events >= limit ? [.bytes(bytes), .close(reset: reset)] : [.bytes(bytes)]
        case .dropAfterBytes(let limit, let reset):
            guard kind != .head else { return [.bytes(bytes)] }
            let allowed = limit - bodyBytes
            bodyBytes += bytes.count
            guard bodyBytes >= limit else { return [.bytes(bytes)] }
            return [.bytes(Array(bytes.prefix(max(0, allowed)))), .close(reset: reset)]
        case .cutInsideEvent(let target, let afterBytes, let reset):
            guard isEvent else { return [.bytes(bytes)] }
            events += 1
            guard events == target else { return [.bytes(bytes)] }
            let chunk = ChunkFrame(bytes)
            return [.bytes(chunk.header + Array(chunk.payload.prefix(afterBytes))), .close(reset: reset)]
        case .fragmentBytes(let size, let delayMs):
            guard kind == .body else { return [.bytes(bytes)] }
            return Self.pieces(
                bytes, cuts: Array(stride(from: size, to: bytes.count, by: max(1, size))), delayMs: delayMs)
        case .fragmentCRLF(let delayMs):
            guard kind == .body else { return [.bytes(bytes)] }
            var chunk = ChunkFrame(bytes)
            chunk.payload = Self.crlfLineEnds(chunk.payload)
            let framed = chunk.framed
            let cuts = framed.indices.dropLast().filter { framed[$0] == 13 && framed[$0 + 1] == 10 }.map { $0 + 1 }
            return Self.pieces(framed, cuts: cuts, delayMs: delayMs)
        case .fragmentUTF8(let delayMs):
            guard kind == .body else { return [.bytes(bytes)] }
            // Cut right after the lead byte of every multi-byte character.
            let cuts = bytes.indices.filter { bytes[$0] >= 0xC0 }.map { $0 + 1 }
            return Self.pieces(bytes, cuts: cuts, delayMs: delayMs)
        case .stall(let afterEvents, let ms):
            if isEvent { events += 1 }
            guard !stalled, kind != .end else { return [.bytes(bytes)] }
            if afterEvents == 0, kind == .head || events == afterEvents {
                stalled = true
                return [.bytes(bytes), .pause(milliseconds: ms)]
            }
            return [.bytes(bytes)]
        case .mute(let ms):
            if kind == .head { muteEnds = .now + .milliseconds(ms) }
            if isEvent, let muteEnds, ContinuousClock.now < muteEnds { return [] }
            return [.bytes(bytes)]
        case .buffer(let limit):
            held += bytes
            guard held.count >= limit || kind == .end else { return [] }
            defer { held = [] }
            return [.bytes(held)]
        case .reset:
            return [.close(reset: true)]
        case .emptyResponse:
            return [.close(reset: false)]
        case .malformedChunk:
            guard kind == .head else { return [] }
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            return [.bytes(Array(head.utf8)), .bytes(Array("zz\r\nnot a chunk at all\r\n".utf8)), .close(reset: false)]
        case .randomDataThenClose:
            guard kind == .head else { return [] }
            return [.bytes(Self.garbage), .close(reset: false)]
        case .hangBeforeHead:
            return kind == .head ? [.pause(milliseconds: Self.forever), .bytes(bytes)] : [.bytes(bytes)]
        }
    }

    /// Bytes that are not HTTP: the same every time, so a test can recognise them.
    static let garbage: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) | 0x80 }

    static func holdsEvent(_ bytes: [UInt8]) -> Bool {
        let needle = Array("data:".utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { start in
            (start == 0 || bytes[start - 1] == 10 || bytes[start - 1] == 13)
                && bytes[start..<(start + 5)].elementsEqual(needle)
        }
    }

    /// LF line ends become CRLF; CRLF stays.
    static func crlfLineEnds(_ payload: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(payload.count + payload.count / 8)
        for (index, byte) in payload.enumerated() {
            if byte == 10, index == 0 || payload[index - 1] != 13 { output.append(13) }
            output.append(byte)
        }
        return output
    }

    /// `bytes` cut before each index in `cuts`, with a pause between pieces.
    static func pieces(_ bytes: [UInt8], cuts: [Int], delayMs: Int) -> [OutboundSegment] {
        var segments: [OutboundSegment] = []
        var start = 0
        for cut in cuts where cut > start && cut < bytes.count {
            segments.append(.bytes(Array(bytes[start..<cut])))
            segments.append(.pause(milliseconds: delayMs))
            start = cut
        }
        segments.append(.bytes(Array(bytes[start...])))
        return segments
    }
}

/// A body write taken apart: the chunk header, the payload, the chunk trailer. Bytes that
/// are not one whole chunk (an HTTP/1.0 stream) are all payload.
struct ChunkFrame {
    var header: [UInt8]
    var payload: [UInt8]
    var trailer: [UInt8]

    init(_ bytes: [UInt8]) {
        if let lineEnd = bytes.firstIndex(of: 13), lineEnd + 1 < bytes.count, bytes[lineEnd + 1] == 10,
            let size = Int(String(decoding: bytes[..<lineEnd], as: UTF8.self), radix: 16),
            lineEnd + 2 + size + 2 == bytes.count
        {
            header = Array(bytes[...(lineEnd + 1)])
            payload = Array(bytes[(lineEnd + 2)..<(lineEnd + 2 + size)])
            trailer = [13, 10]
        } else {
            header = []
            payload = bytes
            trailer = []
        }
    }

    /// Framed again, with the chunk size of the payload as it is now.
    var framed: [UInt8] {
        guard !header.isEmpty else { return payload }
        return Array(String(payload.count, radix: 16).utf8) + [13, 10] + payload + trailer
    }
}
