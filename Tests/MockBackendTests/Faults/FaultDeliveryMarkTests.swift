import MockBackendHTTP
import Testing

@testable import MockBackend

/// A fault's shaper marks the events it lets through where their last byte is, and notes
/// those it drops: a connection counts an event delivered only once that byte is written,
/// so a held, stalled, muted, cut or blackholed event is never counted.
@Suite("Delivery marks of a fault's shaper")
struct FaultDeliveryMarkTests {
    typealias Events = FaultShaperTests

    /// The marks of the segments, in order: `+n` delivered, `-n` dropped, `|` a pause,
    /// `x` a close or blackhole, `b` bytes sent.
    static func trace(_ segments: [OutboundSegment]) -> String {
        segments.map { segment in
            switch segment {
            case .bytes, .paced: "b"
            case .pause: "|"
            case .close, .blackhole, .http2: "x"
            case .delivered(let events): "+\(events)"
            case .dropped(let events): "-\(events)"
            }
        }.joined(separator: " ")
    }

    static func shaped(_ fault: Fault, _ writes: [[UInt8]], now: ContinuousClock.Instant = .now) -> String {
        var shaper = FaultShaper(fault, now: { now })
        var segments = shaper.shape(Events.head, kind: .head)
        for write in writes { segments += shaper.shape(write, kind: .body) }
        return trace(segments)
    }

    @Test func aPassingWriteMarksItsEventsAfterItsBytes() {
        #expect(Self.shaped(.latency(milliseconds: 5), [Events.chunk(1...3)]) == "| b | b +3")
    }

    @Test func aStallMarksOnlyWhatGoesBeforeIt() {
        // Events 3 to 5 wait behind the stall: they count only if it ever ends.
        #expect(Self.shaped(.stall(afterEvents: 2, milliseconds: nil), [Events.chunk(1...5)]) == "b b +2 | b +3")
        #expect(Self.shaped(.stall(afterEvents: 0, milliseconds: nil), [Events.chunk(1...2)]) == "b | b +2")
    }

    @Test func aBlackholeAndADropMarkNothingAfterTheirEnd() {
        #expect(Self.shaped(.blackhole(afterEvents: 2), [Events.chunk(1...3), Events.chunk(4...4)]) == "b b +2 x")
        #expect(
            Self.shaped(.dropAfterEvents(1, reset: false), [Events.chunk(1...3), Events.chunk(4...4)]) == "b b +1 x")
        // The first event whole, three bytes of the second: one delivered.
        #expect(Self.shaped(.cutInsideEvent(event: 2, afterBytes: 3, reset: true), [Events.chunk(1...3)]) == "b b +1 x")
    }

    @Test func muteNotesTheEventsItDrops() {
        let start = ContinuousClock.now
        let text = ": keep-alive\n\n" + Events.event(1) + Events.event(2)
        #expect(Self.shaped(.mute(milliseconds: 1000), [Events.chunk(text)], now: start) == "b b -2")
    }

    @Test func bufferMarksHeldEventsWhenItLetsThemGo() {
        #expect(Self.shaped(.buffer(bytes: 100), [Events.chunk(1...1), Events.chunk(2...5)]) == "b +5")
    }

    @Test func aFragmentCountsItsEventsOnceEveryPieceIsOut() {
        #expect(Self.shaped(.fragment(.bytes(3), pauseMilliseconds: 1), [Events.chunk(1...2)]) == "b b +2")
    }

    @Test func aWebSocketMessageCountsOnceItsWholeFrameLeaves() {
        let head = Array("HTTP/1.1 101 Switching Protocols\r\n\r\n".utf8)
        let message = WebSocketFrameEncoder.text(#"{"type":"progress"}"#)
        let ping = WebSocketFrameEncoder.ping()
        func shaped(_ fault: Fault, messages: Int) -> String {
            var shaper = FaultShaper(fault, webSocket: true)
            var segments = shaper.shape(head, kind: .head)
            for _ in 0..<messages {
                segments += shaper.shape(message, kind: .message)
                segments += shaper.shape(ping, kind: .control)
            }
            return Self.trace(segments)
        }
        #expect(shaped(.latency(milliseconds: 1), messages: 2) == "| b | b +1 | b | b +1 | b")
        // The handshake at once; the messages held with the pings, then let go together.
        let held = message.count * 2 + ping.count
        #expect(shaped(.buffer(bytes: held), messages: 2) == "b b +2")
        // Three bytes of the frame, then the end: not a message.
        #expect(shaped(.dropAfterBytes(3, reset: false), messages: 1) == "b b x")
        #expect(shaped(.mute(milliseconds: nil), messages: 2) == "b -1 b -1 b")
    }
}
