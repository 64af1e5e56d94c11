import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// Autobahn testsuite cases 7.x (closing) and 9.x (limits), over a real socket, and what
/// the application hears of each close.
@Suite("WebSocket Autobahn 7, 9: closing, limits")
struct WebSocketAutobahnCloseTests {
    /// 7.1.1: a message then a close: the echo, then the close echoed.
    @Test func aMessageThenACloseFrame() async throws {
        let registry = WebSocketRegistry()
        try await withEchoWebSocket(registry: registry) { client in
            try client.send(.text("Hello World!"))
            try await client.expectText("Hello World!")
            try await client.closeCleanly()
        }
        let event = try #require(registry.closeEvents.current.first)
        #expect(event == WebSocketCloseEvent(code: .normalClosure, sentCode: .normalClosure, transport: .finished))
        #expect(event.wasClean)
    }

    /// 7.1.2-7.1.5: after the client's close frame nothing counts: a second close, a ping,
    /// a message, the rest of a fragmented message get no answer.
    @Test func nothingAfterACloseFrameIsAnswered() async throws {
        let after: [RawWebSocketFrame] = [
            .close(code: 1000), RawWebSocketFrame(opcode: 9, payload: [1]), .text("after"),
            RawWebSocketFrame(opcode: 0, payload: [0x61]),
        ]
        try await forEachCase(after) { after, client in
            try client.send(RawWebSocketFrame.text("fragment1", fin: false), .close(code: 1000), after)
            let frame = try await client.readFrame()
            #expect(frame == RawWebSocketFrame(opcode: 8, masked: false, payload: [0x03, 0xE8]), "\(after)")
            let rest = await client.readUntilClosed()
            #expect(rest.frames.isEmpty, "\(after)")
            #expect(rest.end == .fin, "\(after)")
            client.close()
        }
    }

    /// 7.1.6: a 256 KiB message, a close, a ping, back to back: the echo, then the close,
    /// no pong.
    @Test func aLargeMessageThenCloseThenPing() async throws {
        try await withEchoWebSocket { client in
            let payload = Array(repeating: UInt8(ascii: "B"), count: 256 * 1024)
            try client.send(
                RawWebSocketFrame(opcode: 1, payload: payload), .close(code: 1000), RawWebSocketFrame(opcode: 9))
            try await client.expectMessage(opcode: 1, payload)
            let close = try await client.readFrame()
            #expect(close.closeCode == 1000)
            let rest = await client.readUntilClosed()
            #expect(rest.frames.isEmpty)
        }
    }

    /// 7.3.1: a close frame without a payload is answered with 1000; the application hears
    /// 1005 (no status received, §7.1.5).
    @Test func aCloseWithoutACode() async throws {
        let registry = WebSocketRegistry()
        try await withEchoWebSocket(registry: registry) { client in
            try client.send(.close(code: nil))
            let frame = try await client.readFrame()
            #expect(frame.closeCode == 1000)
            #expect(await client.readUntilClosed().end == .fin)
        }
        #expect(registry.closeEvents.current.first?.code == .noStatusReceived)
        #expect(registry.closeEvents.current.first?.sentCode == .normalClosure)
    }

    /// 7.3.2: a close payload of one byte is 1002.
    @Test func aCloseOfOneByte() async throws {
        let registry = WebSocketRegistry()
        try await withEchoWebSocket(registry: registry) { client in
            try client.send(RawWebSocketFrame(opcode: 8, payload: [0x03]))
            try await client.expectFailed(with: 1002)
        }
        #expect(
            registry.closeEvents.current == [
                WebSocketCloseEvent(code: .abnormalClosure, sentCode: .protocolError, transport: .connectionClosed)
            ])
    }

    /// 7.3.3-7.3.5: a code, with a reason, with the longest reason: the code is echoed and
    /// the application hears the code and the reason.
    @Test func codesAndReasons() async throws {
        let registry = WebSocketRegistry()
        let reasons = ["", "Hello World!", String(repeating: "*", count: 123)]
        try await forEachCase(reasons, registry: registry) { reason, client in
            try client.send(.close(code: 1000, reason: reason))
            #expect(try await client.readFrame().closeCode == 1000)
            #expect(await client.readUntilClosed().end == .fin)
            client.close()
        }
        #expect(registry.closeEvents.current.map(\.reason).sorted() == reasons.sorted())
    }

    /// 7.3.6: a reason of 124 bytes makes the control frame too long: 1002.
    @Test func aReasonTooLong() async throws {
        try await withEchoWebSocket { client in
            try client.send(.close(code: 1000, reason: String(repeating: "*", count: 124)))
            try await client.expectFailed(with: 1002)
        }
    }

    /// 7.5.1: a reason that is not UTF-8 is 1007.
    @Test func aReasonNotUTF8() async throws {
        try await withEchoWebSocket { client in
            try client.send(
                RawWebSocketFrame(opcode: 8, payload: [0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xED, 0xA0, 0x80]))
            try await client.expectFailed(with: 1007)
        }
    }

    /// 7.7.x: valid codes are echoed.
    @Test func validCodesAreEchoed() async throws {
        try await forEachCase([UInt16(1000), 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999]) {
            code, client in
            try client.send(.close(code: code))
            #expect(try await client.readFrame().closeCode == code)
            #expect(await client.readUntilClosed().end == .fin, "code \(code)")
            client.close()
        }
    }

    /// 7.9.x, 7.13.x: codes that must not be sent, and codes no one defined, are 1002.
    @Test func invalidCodesAre1002() async throws {
        try await forEachCase([UInt16(0), 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535]) {
            code, client in
            try client.send(.close(code: code))
            try await client.expectFailed(with: 1002, "code \(code)")
        }
    }

    // MARK: - 9.x: limits

    private static func limited(_ bytes: Int) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.webSocket.maxMessageBytes = bytes
        return configuration
    }

    /// 9.1.1, 9.2.1: 64 KiB messages are echoed; one byte over the limit is 1009.
    @Test func messagesUpToTheLimitAreEchoedOneByteMoreIs1009() async throws {
        try await withEchoWebSocket(configuration: Self.limited(65536)) { client in
            let text = Array(repeating: UInt8(ascii: "*"), count: 65536)
            try client.send(RawWebSocketFrame(opcode: 1, payload: text))
            try await client.expectMessage(opcode: 1, text)
            try client.send(RawWebSocketFrame(opcode: 2, payload: text))
            try await client.expectMessage(opcode: 2, text)
            try client.send(RawWebSocketFrame(opcode: 2, payload: text + [0]))
            try await client.expectFailed(with: 1009)
        }
    }

    /// The limit counts a fragmented message whole, and fails it at the header of the
    /// fragment that passes it, before its payload arrives.
    @Test func aFragmentedMessageOverTheLimitIs1009() async throws {
        try await withEchoWebSocket(configuration: Self.limited(1000)) { client in
            try client.send(RawWebSocketFrame(fin: false, opcode: 2, payload: Array(repeating: 1, count: 600)))
            try await client.expectSilence()
            try client.send(bytes: [0x80, 0xFE, 0x01, 0x91])  // continuation, masked, 401 bytes: header only
            try await client.expectFailed(with: 1009)
        }
    }

    /// The default limit is 1 MiB: a header announcing 1 MiB + 1 is enough.
    @Test func theDefaultLimitIsOneMebibyte() async throws {
        try await withEchoWebSocket { client in
            try client.send(bytes: [0x82, 0xFF, 0, 0, 0, 0, 0, 0x10, 0x00, 0x01])
            try await client.expectFailed(with: 1009)
        }
    }
}
