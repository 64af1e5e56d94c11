import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

@Suite("WebSocket messages: assembler, encoder, close payload")
struct WebSocketMessageTests {
    @Test func joinsFragmentsAndPassesControlFramesBetweenThem() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.append(WebSocketFrame(fin: false, opcode: .text, payload: [0xF0, 0x9F])) == nil)
        #expect(assembler.append(WebSocketFrame(opcode: .ping, payload: [7])) == .ping([7]))
        #expect(assembler.append(WebSocketFrame(fin: false, opcode: .continuation, payload: [0x98])) == nil)
        #expect(assembler.append(WebSocketFrame(opcode: .pong)) == .pong([]))
        #expect(assembler.append(WebSocketFrame(opcode: .continuation, payload: [0x80, 0x21])) == .text("😀!"))
        // The next message starts afresh.
        #expect(assembler.append(WebSocketFrame(opcode: .binary, payload: [1, 2])) == .binary([1, 2]))
        #expect(assembler.append(WebSocketFrame(fin: false, opcode: .binary, payload: [3])) == nil)
        #expect(assembler.append(WebSocketFrame(opcode: .continuation, payload: [4])) == .binary([3, 4]))
        #expect(assembler.append(WebSocketFrame(opcode: .text)) == .text(""))
    }

    @Test func readsCloseFrames() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.append(WebSocketFrame(opcode: .close)) == .close(WebSocketClosePayload(code: nil)))
        #expect(
            assembler.append(WebSocketFrame(opcode: .close, payload: [0x0F, 0xA0] + Array("bye".utf8)))
                == .close(WebSocketClosePayload(code: WebSocketCloseCode(4000), reason: "bye")))
    }

    /// Whole messages through the decoder and the assembler, as the connection reads them.
    @Test func decoderAndAssemblerTogether() {
        var decoder = WebSocketFrameDecoder()
        var assembler = WebSocketMessageAssembler()
        let input = wire(
            .text("Hel", fin: false), RawWebSocketFrame(opcode: 9, payload: [1]),
            RawWebSocketFrame(opcode: 0, payload: Array("lo".utf8)),
            .close(code: 1001, reason: "away"))
        var messages: [WebSocketInboundMessage] = []
        for byte in input {
            for case .frame(let frame) in decoder.feed([byte]) {
                if let message = assembler.append(frame) { messages.append(message) }
            }
        }
        #expect(
            messages == [.ping([1]), .text("Hello"), .close(WebSocketClosePayload(code: .goingAway, reason: "away"))])
    }

    @Test("frames server messages unmasked, the length in its shortest form", arguments: [0, 125, 126, 65535, 65536])
    func encoderLengths(_ count: Int) throws {
        let payload = Array(repeating: UInt8(0x42), count: count)
        let bytes = WebSocketFrameEncoder.frame(.binary, payload: payload)
        #expect(bytes.count == payload.count + (count < 126 ? 2 : count < 65536 ? 4 : 10))
        let (frame, size) = try #require(RawWebSocketFrame.decode(bytes))
        #expect(size == bytes.count)
        #expect(frame == RawWebSocketFrame(opcode: 2, masked: false, payload: payload))
    }

    @Test func preparedMessagesAreTheSameFrames() {
        #expect(PreparedWebSocketMessage(text: "ok").frame == WebSocketFrameEncoder.text("ok"))
        #expect(PreparedWebSocketMessage(text: "ok").frame == [0x81, 0x02, 0x6F, 0x6B])
        #expect(PreparedWebSocketMessage(binary: [9]).frame == [0x82, 0x01, 0x09])
    }

    @Test func closeReasonsAreCutAtACharacterBoundary() {
        // 61 two-byte characters and one more: 124 bytes, cut to 122 (never inside "é").
        let reason = String(repeating: "é", count: 62)
        let payload = WebSocketClosePayload(code: .normalClosure, reason: reason).bytes
        #expect(payload.count == 2 + 122)
        #expect(String(validating: payload[2...], as: UTF8.self) != nil)
        #expect(WebSocketFrameEncoder.close(WebSocketClosePayload(code: .goingAway)) == [0x88, 0x02, 0x03, 0xE9])
        #expect(WebSocketClosePayload(code: nil, reason: "ignored").bytes.isEmpty)
    }

    @Test func pingsAndPongsKeepTo125Bytes() {
        #expect(WebSocketFrameEncoder.pong(Array(repeating: 1, count: 200)).count == 127)
        #expect(WebSocketFrameEncoder.ping() == [0x89, 0x00])
    }

    @Test func closeCodesThatMayBeSent() {
        let sendable = (0...5000).filter { WebSocketCloseCode(UInt16($0)).isSendable }
        #expect(sendable == Array(1000...1003) + Array(1007...1014) + Array(3000...4999))
    }
}
