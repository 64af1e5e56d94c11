import MockBackendHTTP
import TestSupport
import Testing

@testable import MockBackend

/// The writes of a connection upgraded to WebSocket (`.message`, `.control`) through the
/// shapers that do not count messages (those that do: `FaultShaperWebSocketTests`).
@Suite("Shapers and WebSocket writes")
struct WebSocketWriteKindTests {
    static let head = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n".utf8)
    static let message: [UInt8] = [0x81, 0x02, 0x6F, 0x6B]
    static let pong: [UInt8] = [0x8A, 0x00]

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
