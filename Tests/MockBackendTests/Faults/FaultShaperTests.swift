import MockBackendHTTP
import TestSupport
import Testing

@testable import MockBackend

/// Every fault kind, fed writes as a connection would feed them, without sockets.
@Suite("FaultShaper")
struct FaultShaperTests {
    static let head = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)

    /// An event as the stream encodes it.
    static func event(_ id: Int) -> String { "id: \(id)\ndata: e\(id)\n\n" }

    /// One body write of these events, framed as one chunk.
    static func chunk(_ ids: ClosedRange<Int>) -> [UInt8] { chunk(ids.map(event).joined()) }

    static func chunk(_ text: String) -> [UInt8] {
        Array((String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n").utf8)
    }

    static let lastChunk = Array("0\r\n\r\n".utf8)

    /// What the shaper makes of the head, the writes, and the end.
    static func shape(_ fault: Fault, _ writes: [[UInt8]], end: Bool = true, now: ContinuousClock.Instant = .now)
        -> [OutboundSegment]
    {
        var shaper = FaultShaper(fault, now: { now })
        var segments = shaper.shape(head, kind: .head).sent
        for write in writes { segments += shaper.shape(write, kind: .body).sent }
        if end { segments += shaper.shape(lastChunk, kind: .end).sent }
        return segments
    }

    /// The body bytes the segments send, chunk framing removed (pieces joined).
    static func body(_ segments: [OutboundSegment]) -> String {
        var bytes: [UInt8] = []
        for segment in segments {
            switch segment {
            case .bytes(let piece): bytes += piece
            case .paced(var paced): while paced.remaining > 0 { bytes += paced.takePiece() }
            default: break
            }
        }
        // Work on bytes: to Swift, "\r\n" is one Character.
        if bytes.starts(with: Array("HTTP/".utf8)), let headEnd = find([13, 10, 13, 10], in: bytes[...]) {
            bytes = Array(bytes[(headEnd + 4)...])
        }
        var payload: [UInt8] = []
        var rest = bytes[...]
        while let lineEnd = find([13, 10], in: rest),
            let size = Int(String(decoding: rest[rest.startIndex..<lineEnd], as: UTF8.self), radix: 16)
        {
            let start = lineEnd + 2
            let end = min(start + size, rest.endIndex)
            payload += rest[start..<end]
            rest = rest[end...].dropFirst(2)
            if size == 0 { break }
        }
        return String(decoding: payload + rest, as: UTF8.self)
    }

    static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (haystack.startIndex...(haystack.endIndex - needle.count)).first {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    static func ids(_ text: String) -> [Int] {
        text.split(separator: "\n").compactMap { $0.hasPrefix("id: ") ? Int($0.dropFirst(4)) : nil }
    }

    @Test func delayPausesBeforeTheHeadOnly() {
        let segments = Self.shape(.delay(milliseconds: 300), [Self.chunk(1...1)])
        #expect(segments.first == .pause(milliseconds: 300))
        #expect(segments.filter { if case .pause = $0 { true } else { false } }.count == 1)
    }

    @Test func latencyPausesBeforeEveryWrite() {
        let segments = Self.shape(.latency(milliseconds: 50), [Self.chunk(1...1), Self.chunk(2...2)])
        #expect(segments.filter { $0 == .pause(milliseconds: 50) }.count == 4)
    }

    @Test(arguments: [false, true])
    func dropAfterEventsCountsEventsInsideABatch(reset: Bool) {
        // One write of ten events (a flood or a replay), then more.
        let segments = Self.shape(.dropAfterEvents(3, reset: reset), [Self.chunk(1...10), Self.chunk(11...12)])
        #expect(Self.ids(Self.body(segments)) == [1, 2, 3])
        #expect(segments.last == .close(reset: reset))
        // Each event in a write of its own counts the same.
        let apart = Self.shape(.dropAfterEvents(3, reset: reset), (1...10).map { Self.chunk($0...$0) })
        #expect(Self.ids(Self.body(apart)) == [1, 2, 3])
        // Zero: the head, then the end.
        #expect(
            Self.shape(.dropAfterEvents(0, reset: reset), [Self.chunk(1...2)]) == [
                .bytes(Self.head), .close(reset: reset),
            ])
    }

    @Test func heartbeatsAndRetryAreNotEvents() {
        let writes = [
            Self.chunk(": keep-alive\n\nretry: 100\n\n"), Self.chunk(1...1), Self.chunk(": keep-alive\n\n"),
            Self.chunk(2...3),
        ]
        #expect(Self.ids(Self.body(Self.shape(.dropAfterEvents(2, reset: false), writes))) == [1, 2])
    }

    @Test func dropAfterBytesCutsTheBody() {
        let segments = Self.shape(.dropAfterBytes(5, reset: false), [Array("{\"status\":\"ok\"}".utf8)])
        #expect(segments == [.bytes(Self.head), .bytes(Array("{\"sta".utf8)), .close(reset: false)])
    }

    @Test func cutInsideEventCutsTheEventInsideABatch() {
        let segments = Self.shape(.cutInsideEvent(event: 2, afterBytes: 7, reset: false), [Self.chunk(1...3)])
        guard case .bytes(let cut) = segments[1] else {
            Issue.record("expected bytes")
            return
        }
        // The chunk header announced all three events; the client gets one and a part.
        #expect(String(decoding: cut, as: UTF8.self) == "30\r\nid: 1\ndata: e1\n\nid: 2\nd")
        #expect(segments.last == .close(reset: false))
    }

    @Test func fragmentCutsPiecesLazily() {
        let write = Self.chunk(1...1000)
        let segments = Self.shape(.fragment(.bytes(1), pauseMilliseconds: 20), [write], end: false)
        // One segment whatever the size: the pieces are cut as the socket drains.
        #expect(segments.count == 2)
        guard case .paced(let paced) = segments[1] else {
            Issue.record("expected a paced segment")
            return
        }
        #expect(paced.bytes == write)
        #expect(paced.cut == .every(1))
        #expect(paced.pauseMilliseconds == 20)
    }

    @Test func fragmentSplitsCRLFAndUTF8() {
        let crlf = Self.shape(.fragment(.crlf, pauseMilliseconds: 5), [Self.chunk("data: a\n\n")], end: false)
        guard case .paced(var lines) = crlf[1] else {
            Issue.record("expected a paced segment")
            return
        }
        var pieces: [String] = []
        while lines.remaining > 0 { pieces.append(String(decoding: lines.takePiece(), as: UTF8.self)) }
        #expect(pieces == ["b\r", "\ndata: a\r", "\n\r", "\n\r", "\n"])
        let utf8 = Self.shape(.fragment(.utf8, pauseMilliseconds: 5), [Array("é!".utf8)], end: false)
        guard case .paced(var characters) = utf8[1] else {
            Issue.record("expected a paced segment")
            return
        }
        #expect(Array(characters.takePiece()) == [0xC3])
        #expect(Array(characters.takePiece()) == [0xA9, 0x21])
    }

    @Test func stallAfterEventsStallsThere() {
        let segments = Self.shape(.stall(afterEvents: 2, milliseconds: nil), [Self.chunk(1...1), Self.chunk(2...4)])
        let pause = segments.firstIndex(of: .pause(milliseconds: Fault.longestPause))
        #expect(pause != nil)
        let before = Array(segments[..<(pause ?? 0)])
        #expect(Self.ids(Self.body(before)) == [1, 2])
        #expect(Self.ids(Self.body(segments)) == [1, 2, 3, 4])
        // From the start: right after the head.
        let atOnce = Self.shape(.stall(afterEvents: 0, milliseconds: 500), [Self.chunk(1...1)])
        #expect(Array(atOnce.prefix(2)) == [.bytes(Self.head), .pause(milliseconds: 500)])
    }

    @Test func blackholeSendsNothingFromEventN() {
        let segments = Self.shape(.blackhole(afterEvents: 2), [Self.chunk(1...3), Self.chunk(4...5)])
        #expect(Self.ids(Self.body(segments)) == [1, 2])
        #expect(segments.last == .blackhole)
        #expect(Self.shape(.blackhole(afterEvents: 0), [Self.chunk(1...1)]) == [.bytes(Self.head), .blackhole])
    }

    @Test func muteDropsEventsButNotHeartbeatsUntilItEnds() {
        let start = ContinuousClock.now
        var shaper = FaultShaper(.mute(milliseconds: 1000), now: { start })
        _ = shaper.shape(Self.head, kind: .head).sent
        let muted = shaper.shape(Self.chunk(": keep-alive\n\n" + Self.event(1)), kind: .body).sent
        #expect(Self.body(muted) == ": keep-alive\n\n")
        #expect(shaper.shape(Self.chunk(2...2), kind: .body).sent.isEmpty)
        var later = FaultShaper(.mute(milliseconds: 1000), now: { start })
        _ = later.shape(Self.head, kind: .head).sent
        later = FaultShaper(.mute(milliseconds: 0), now: { start })
        _ = later.shape(Self.head, kind: .head).sent
        #expect(Self.ids(Self.body(later.shape(Self.chunk(3...3), kind: .body).sent)) == [3])
    }

    @Test func bufferHoldsBytesUntilTheLimitOrTheEnd() {
        var shaper = FaultShaper(.buffer(bytes: 100))
        #expect(shaper.shape(Self.head, kind: .head).sent.isEmpty)
        #expect(shaper.shape(Self.chunk(1...1), kind: .body).sent.isEmpty)
        let released = shaper.shape(Self.chunk(2...5), kind: .body).sent
        #expect(Self.ids(Self.body(released)) == [1, 2, 3, 4, 5])
        #expect(shaper.shape(Self.chunk(6...6), kind: .body).sent.isEmpty)
        #expect(Self.ids(Self.body(shaper.shape(Self.lastChunk, kind: .end).sent)) == [6])
    }

    @Test func resetEmptyAndMalformedReplaceTheResponse() {
        #expect(Self.shape(.reset, [Self.chunk(1...1)]) == [.close(reset: true)])
        #expect(Self.shape(.emptyResponse, [Self.chunk(1...1)]) == [.close(reset: false)])
        let chunk = Self.shape(.malformed(.malformedResponseChunk), [])
        #expect(
            String(decoding: chunk.compactMap { if case .bytes(let b) = $0 { b } else { nil } }.joined(), as: UTF8.self)
                .contains("\r\n\r\nzz\r\n"))
        #expect(chunk.last == .close(reset: false))
        #expect(
            Self.shape(.malformed(.randomDataThenClose), []) == [.bytes(FaultShaper.garbage), .close(reset: false)])
    }

    @Test func aHungStreamSendsNothingAndHoldsNothing() {
        let segments = Self.shape(.refuseStream(status: nil, hang: true), [Self.chunk(1...100)])
        #expect(segments == [.pause(milliseconds: Fault.longestPause)])
    }

    @Test func aStubsDelaysAndAFaultsAddUp() {
        var chained = ChainedShaper(
            StubTimingShaper(headDelayMilliseconds: 300, bodyDelaysMilliseconds: [100]),
            then: FaultShaper(.delay(milliseconds: 200)))
        #expect(
            chained.shape(Self.head, kind: .head).sent == [
                .pause(milliseconds: 300), .pause(milliseconds: 200), .bytes(Self.head),
            ])
        #expect(
            chained.shape(Self.chunk(1...1), kind: .body).sent == [
                .pause(milliseconds: 100), .bytes(Self.chunk(1...1)),
            ])
    }
}

extension [OutboundSegment] {
    /// The segments that send or pause, without the delivery marks (`FaultDeliveryMarkTests`
    /// checks those).
    var sent: [OutboundSegment] {
        filter { segment in
            switch segment {
            case .delivered, .dropped: false
            default: true
            }
        }
    }
}
