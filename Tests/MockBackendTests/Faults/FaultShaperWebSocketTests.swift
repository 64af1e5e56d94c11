import MockBackendHTTP
import TestSupport
import Testing

@testable import MockBackend

/// On a WebSocket every data message is a write of its own: faults count messages, and
/// control frames (pings, pongs, close) are never counted.
@Suite("FaultShaper on WebSocket writes")
struct FaultShaperWebSocketTests {
    static let head = Array("HTTP/1.1 101 Switching Protocols\r\n\r\n".utf8)
    static func message(_ id: Int) -> [UInt8] { WebSocketFrameEncoder.text(#"{"type":"progress","n":\#(id)}"#) }
    static let ping = WebSocketFrameEncoder.ping([])

    private func shape(_ fault: Fault, _ writes: [(bytes: [UInt8], kind: ResponseWriteKind)]) -> [OutboundSegment] {
        var shaper = FaultShaper(fault, webSocket: true)
        var segments = shaper.shape(Self.head, kind: .head).sent
        for write in writes { segments += shaper.shape(write.bytes, kind: write.kind).sent }
        return segments
    }

    private func sentMessages(_ segments: [OutboundSegment]) -> Int {
        segments.reduce(0) { count, segment in
            if case .bytes(let bytes) = segment, bytes.first == 0x81 { return count + 1 }
            return count
        }
    }

    @Test func dropAfterEventsCountsMessagesNotPings() {
        let writes = [(Self.ping, ResponseWriteKind.control)] + (1...5).map { (Self.message($0), .message) }
        let segments = shape(.dropAfterEvents(2, reset: true), writes)
        #expect(sentMessages(segments) == 2)
        #expect(segments.last == .close(reset: true))
    }

    @Test func stallAndBlackholeActAfterTheNthMessage() {
        let writes = (1...4).map { (Self.message($0), ResponseWriteKind.message) } + [(Self.ping, .control)]
        let stalled = shape(.stall(afterEvents: 3, milliseconds: 500), writes)
        let pause = stalled.firstIndex(of: .pause(milliseconds: 500))
        #expect(pause.map { sentMessages(Array(stalled[..<$0])) } == 3)
        let holed = shape(.blackhole(afterEvents: 1), writes)
        #expect(sentMessages(holed) == 1)
        #expect(holed.last == .blackhole)
    }

    @Test func muteDropsMessagesButNotPings() {
        var shaper = FaultShaper(.mute(milliseconds: nil), webSocket: true)
        _ = shaper.shape(Self.head, kind: .head).sent
        #expect(shaper.shape(Self.message(1), kind: .message).sent.isEmpty)
        #expect(shaper.shape(Self.ping, kind: .control).sent == [.bytes(Self.ping)])
    }

    @Test func cutInsideEventCutsTheMessageFrame() {
        let segments = shape(
            .cutInsideEvent(event: 2, afterBytes: 3, reset: false),
            [(Self.message(1), .message), (Self.message(2), .message)])
        #expect(segments.count == 4)
        #expect(segments[2] == .bytes(Array(Self.message(2).prefix(3))))
        #expect(segments.last == .close(reset: false))
    }

    /// The handshake goes at once; messages and pings are held; the close frame is the
    /// end, and lets everything go with it.
    @Test func bufferPassesTheHandshakeAndLetsGoAtTheClose() {
        var shaper = FaultShaper(.buffer(bytes: 1 << 20), webSocket: true)
        #expect(shaper.shape(Self.head, kind: .head).sent == [.bytes(Self.head)])
        #expect(shaper.shape(Self.message(1), kind: .message).sent.isEmpty)
        #expect(shaper.shape(Self.ping, kind: .control).sent.isEmpty)
        let close = WebSocketFrameEncoder.close(WebSocketClosePayload(code: .normalClosure))
        #expect(
            shaper.shape(close, kind: .control).sent == [.bytes(Self.message(1) + Self.ping + close)])
    }
}
