import MockBackendHTTP

/// Applies a fault to the bytes of one response on their way to the socket: the
/// byte-level half of the fault layer. Route handlers know nothing of it.
///
/// Pure: it turns writes into segments and keeps what it has seen (events, bytes), so each
/// kind is tested by feeding it writes. Body writes arrive framed (one whole chunk on
/// HTTP/1.1); kinds that act on events take the chunk apart, find the events in it
/// (`EventBoundaryScanner`: a write may hold many, as a flood or a replay does), and frame
/// the parts they send again. On a WebSocket, each data message is a write of its own
/// (`.message`) and counts as one event; control frames (`.control`: pings, pongs, close)
/// are never counted. Time comes from `now`, so `mute` is tested without waiting. It marks
/// the events it lets through, and those it drops (`DeliveryMarker`).
struct FaultShaper: ResponseShaper {
    let fault: Fault
    private let now: @Sendable () -> ContinuousClock.Instant
    private var scanner = EventBoundaryScanner()
    private var marker: DeliveryMarker
    /// Whether the response is a WebSocket.
    private let webSocket: Bool
    /// Events the write being shaped dropped (`mute`).
    private var droppedEvents = 0
    /// Events seen in body writes so far.
    private var events = 0
    private var bodyBytes = 0
    /// Nothing more goes out: the connection was closed or blackholed.
    private var silenced = false
    private var stalled = false
    private var held: [UInt8] = []
    private var muteEnds: ContinuousClock.Instant?

    /// - Parameter webSocket: whether the response is a WebSocket (its events are messages).
    init(_ fault: Fault, webSocket: Bool = false, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.fault = fault
        self.now = now
        self.webSocket = webSocket
        marker = DeliveryMarker(messages: webSocket)
    }

    var marksEvents: Bool { true }

    mutating func shape(_ bytes: [UInt8], kind: ResponseWriteKind) -> [OutboundSegment] {
        guard !silenced else { return [] }
        droppedEvents = 0
        let segments = apply(bytes, kind: kind)
        if segments.contains(where: {
            switch $0 {
            case .close, .blackhole, .http2: true
            default: false
            }
        }) {
            silenced = true
        }
        return marker.marking(segments, written: bytes.count, kind: kind, dropped: droppedEvents)
    }

    /// Counts a body write against an allowance of `limit` body bytes. Nil while the body
    /// stays within it (at `limit` itself too, unless `reachedAtLimit`); else the write's
    /// bytes that fit and those past it.
    private mutating func cut(_ bytes: [UInt8], atBodyByte limit: Int, reachedAtLimit: Bool) -> (
        within: [UInt8], past: [UInt8]
    )? {
        let allowed = max(0, limit - bodyBytes)
        bodyBytes += bytes.count
        guard reachedAtLimit ? bodyBytes >= limit : bodyBytes > limit else { return nil }
        return (Array(bytes.prefix(allowed)), Array(bytes.dropFirst(allowed)))
    }

    private mutating func apply(_ bytes: [UInt8], kind: ResponseWriteKind) -> [OutboundSegment] {
        switch fault {
        case .delay(let milliseconds):
            return kind == .head ? [.pause(milliseconds: milliseconds), .bytes(bytes)] : [.bytes(bytes)]
        case .latency(let milliseconds):
            return bytes.isEmpty ? [] : [.pause(milliseconds: milliseconds), .bytes(bytes)]
        case .dropAfterEvents(let limit, let reset):
            return endAfter(events: limit, bytes, kind: kind, with: .close(reset: reset))
        case .blackhole(let afterEvents):
            return endAfter(events: afterEvents, bytes, kind: kind, with: .blackhole)
        case .rstStream(let code, let afterEvents):
            return endAfter(events: afterEvents, bytes, kind: kind, with: .http2(.resetStream(code: UInt32(code))))
        case .goAway(let code, let afterEvents, let lastStreamID):
            return endAfter(
                events: afterEvents, bytes, kind: kind,
                with: .http2(.goAway(code: UInt32(code), lastStreamID: lastStreamID.map { Int32($0) })))
        case .windowStall(let afterBytes):
            guard kind != .head, !stalled else { return [.bytes(bytes)] }
            // A window of exactly `afterBytes` is not yet stalled: the next byte is.
            guard let (within, past) = cut(bytes, atBodyByte: afterBytes, reachedAtLimit: false) else {
                return [.bytes(bytes)]
            }
            stalled = true
            return (within.isEmpty ? [] : [.bytes(within)]) + [.pause(milliseconds: Fault.longestPause), .bytes(past)]
        case .dropAfterBytes(let limit, let reset):
            guard kind != .head,
                let (within, _) = cut(bytes, atBodyByte: limit, reachedAtLimit: true)
            else { return [.bytes(bytes)] }
            return [.bytes(within), .close(reset: reset)]
        case .cutInsideEvent(let target, let afterBytes, let reset):
            guard let (chunk, found) = events(in: bytes, kind: kind) else { return [.bytes(bytes)] }
            guard events < target, events + found.count >= target else {
                events += found.count
                return [.bytes(bytes)]
            }
            let event = found[target - events - 1]
            events += found.count
            // The chunk's own header stays: the client sees a chunk that never completes.
            let cut = min(event.upperBound, event.lowerBound + afterBytes)
            return [.bytes(chunk.header + chunk.payload[..<cut]), .close(reset: reset)]
        case .fragment(let fragmentation, let pause):
            guard kind == .body || kind == .message, !bytes.isEmpty else { return [.bytes(bytes)] }
            switch fragmentation {
            case .bytes(let size): return [.paced(PacedBytes(bytes, cut: .every(size), pauseMilliseconds: pause))]
            case .utf8: return [.paced(PacedBytes(bytes, cut: .insideUTF8, pauseMilliseconds: pause))]
            case .crlf:
                // Line ends are an event stream's; a WebSocket frame has none to split.
                guard kind == .body else { return [.bytes(bytes)] }
                var chunk = ChunkFrame(bytes)
                chunk.payload = Self.crlfLineEnds(chunk.payload)
                return [.paced(PacedBytes(chunk.framed, cut: .betweenCRLF, pauseMilliseconds: pause))]
            }
        case .stall(let afterEvents, let milliseconds):
            let pause = OutboundSegment.pause(milliseconds: milliseconds ?? Fault.longestPause)
            guard !stalled else { return [.bytes(bytes)] }
            if afterEvents == 0 {
                guard kind == .head else { return [.bytes(bytes)] }
                stalled = true
                return [.bytes(bytes), pause]
            }
            guard let (sent, rest) = split(bytes, kind: kind, afterEvent: afterEvents) else { return [.bytes(bytes)] }
            stalled = true
            return [.bytes(sent), pause] + (rest.isEmpty ? [] : [.bytes(rest)])
        case .mute(let milliseconds):
            if kind == .head {
                muteEnds = now() + .milliseconds(milliseconds ?? Fault.longestPause)
                return [.bytes(bytes)]
            }
            guard let muteEnds, now() < muteEnds, let (framedChunk, found) = events(in: bytes, kind: kind),
                !found.isEmpty
            else { return [.bytes(bytes)] }
            var chunk = framedChunk
            // Only the events go; comments (heartbeats) and bare `retry:` stay.
            droppedEvents = found.count
            var kept: [UInt8] = []
            var start = 0
            for event in found {
                kept += chunk.payload[start..<event.lowerBound]
                start = event.upperBound
            }
            kept += chunk.payload[start...]
            guard !kept.isEmpty else { return [] }
            chunk.payload = kept
            return [.bytes(chunk.framed)]
        case .buffer(let limit):
            // A buffering proxy in front of a WebSocket passes the handshake (its 101 is
            // what opens the tunnel) and holds the frames; the close frame is the end.
            if webSocket, kind == .head { return [.bytes(bytes)] }
            held += bytes
            // A control write is one frame: its opcode is in the low bits of its first byte.
            let isClose = kind == .control && bytes.first.map { $0 & 0x0F } == WebSocketOpcode.close.rawValue
            let ends = kind == .end || isClose
            guard held.count >= limit || ends else { return [] }
            defer { held = [] }
            return [.bytes(held)]
        case .reset:
            return [.close(reset: true)]
        case .emptyResponse:
            return [.close(reset: false)]
        case .malformed(.malformedResponseChunk):
            guard kind == .head else { return [] }
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            return [.bytes(Array(head.utf8)), .bytes(Array("zz\r\nnot a chunk at all\r\n".utf8)), .close(reset: false)]
        case .malformed(.randomDataThenClose):
            guard kind == .head else { return [] }
            return [.bytes(Self.garbage), .close(reset: false)]
        case .refuseStream:
            // Hangs before the head: nothing is ever sent, and what the stream writes
            // meanwhile is dropped rather than held (it would only fill memory).
            return kind == .head ? [.pause(milliseconds: Fault.longestPause)] : []
        case .status, .forbidden, .maxConcurrentStreams, .contentLengthOnStream:
            return [.bytes(bytes)]
        }
    }

    /// Sends up to and including the `limit`-th event (0: the head only), then `ending`.
    private mutating func endAfter(
        events limit: Int, _ bytes: [UInt8], kind: ResponseWriteKind, with ending: OutboundSegment
    )
        -> [OutboundSegment]
    {
        if kind == .head { return limit == 0 ? [.bytes(bytes), ending] : [.bytes(bytes)] }
        guard let (sent, _) = split(bytes, kind: kind, afterEvent: limit) else { return [.bytes(bytes)] }
        return [.bytes(sent), ending]
    }

    /// When the `target`-th event ends in this body write: the write up to the end of that
    /// event and the rest, each framed as a chunk of its own where the write was one. Nil
    /// when it does not end here. Counts the write's events either way.
    private mutating func split(_ bytes: [UInt8], kind: ResponseWriteKind, afterEvent target: Int)
        -> (sent: [UInt8], rest: [UInt8])?
    {
        guard let (chunk, found) = events(in: bytes, kind: kind) else { return nil }
        defer { events += found.count }
        guard events < target, events + found.count >= target else { return nil }
        let end = found[target - events - 1].upperBound
        return (chunk.reframed(chunk.payload[..<end]), chunk.reframed(chunk.payload[end...]))
    }

    /// A write taken apart and the events in it, as ranges of its payload: the event-stream
    /// events of a body write, the message itself of a WebSocket message write. Nil for a
    /// write that can hold none (the head, the end, a control frame).
    private mutating func events(in bytes: [UInt8], kind: ResponseWriteKind) -> (ChunkFrame, [Range<Int>])? {
        switch kind {
        case .body:
            let chunk = ChunkFrame(bytes)
            return (chunk, scanner.scan(chunk.payload))
        case .message:
            return (ChunkFrame(unframed: bytes), [0..<bytes.count])
        case .head, .end, .control:
            return nil
        }
    }

    /// Bytes that are not HTTP: the same every time, so a test can recognise them.
    static let garbage: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) | 0x80 }

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

    /// Bytes that are not a chunk (a WebSocket frame): all payload, framed as they are.
    init(unframed bytes: [UInt8]) {
        header = []
        payload = bytes
        trailer = []
    }

    /// Framed again, with the chunk size of the payload as it is now.
    var framed: [UInt8] { reframed(payload[...]) }

    /// `part` framed as this write was: a chunk of its own, or as it is. Empty for no bytes
    /// (an empty chunk would end a chunked body).
    func reframed(_ part: ArraySlice<UInt8>) -> [UInt8] {
        guard !part.isEmpty else { return [] }
        guard !header.isEmpty else { return Array(part) }
        return Array(String(part.count, radix: 16).utf8) + [13, 10] + part + trailer
    }
}
