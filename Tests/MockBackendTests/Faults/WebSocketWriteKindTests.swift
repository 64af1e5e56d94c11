import MockBackendHTTP
import Testing

@testable import MockBackend

/// The writes of a connection upgraded to WebSocket (`.message`, `.control`) through the
/// mock's shapers. None counts messages yet: each passes as a body write holding no event
/// would, after the kinds that act on the head only.
@Suite("Shapers and WebSocket writes")
struct WebSocketWriteKindTests {
    static let head = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n".utf8)
    static let message: [UInt8] = [0x81, 0x02, 0x6F, 0x6B]
    static let pong: [UInt8] = [0x8A, 0x00]

    @Test(
        "faults that act on events or chunks pass messages and control frames through",
        arguments: [
            Fault.dropAfterEvents(1, reset: false), .cutInsideEvent(event: 1, afterBytes: 1, reset: false),
            .fragment(.bytes(1), pauseMilliseconds: 5), .mute(milliseconds: nil),
            .stall(afterEvents: 1, milliseconds: nil), .delay(milliseconds: 10), .blackhole(afterEvents: 1),
        ])
    func passThrough(_ fault: Fault) {
        var shaper = FaultShaper(fault)
        _ = shaper.shape(Self.head, kind: .head)
        #expect(shaper.shape(Self.message, kind: .message) == [.bytes(Self.message)])
        #expect(shaper.shape(Self.pong, kind: .control) == [.bytes(Self.pong)])
    }

    @Test func latencyPausesBeforeEveryWrite() {
        var shaper = FaultShaper(.latency(milliseconds: 20))
        #expect(shaper.shape(Self.message, kind: .message) == [.pause(milliseconds: 20), .bytes(Self.message)])
        #expect(shaper.shape(Self.pong, kind: .control) == [.pause(milliseconds: 20), .bytes(Self.pong)])
    }

    @Test func aDropAtTheHeadEndsTheConnectionBeforeAnyMessage() {
        var shaper = FaultShaper(.dropAfterEvents(0, reset: true))
        #expect(shaper.shape(Self.head, kind: .head) == [.bytes(Self.head), .close(reset: true)])
        #expect(shaper.shape(Self.message, kind: .message).isEmpty)
    }

    @Test func stubDelaysApplyToTheHeadOnly() {
        var shaper = StubTimingShaper(headDelayMilliseconds: 30, bodyDelaysMilliseconds: [40])
        #expect(shaper.shape(Self.head, kind: .head) == [.pause(milliseconds: 30), .bytes(Self.head)])
        #expect(shaper.shape(Self.message, kind: .message) == [.bytes(Self.message)])
        #expect(shaper.shape(Self.pong, kind: .control) == [.bytes(Self.pong)])
    }

    @Test func chunkingLeavesFramesWhole() {
        let shaper = ChunkingShaper(size: 1, delayMilliseconds: 5)
        #expect(shaper.shape(Self.message, kind: .message) == [.bytes(Self.message)])
    }
}
