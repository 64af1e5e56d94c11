import MockBackendHTTP
import MockBackendTesting
import Testing

/// Autobahn testsuite cases 1.x (framing), 2.x (pings and pongs), 3.x (reserved bits) and
/// 4.x (opcodes), over a real socket against the echo route.
@Suite("WebSocket Autobahn 1-4: framing, pings, reserved bits, opcodes")
struct WebSocketAutobahnFramingTests {
    /// 1.1.1-1.1.6 (text) and 1.2.1-1.2.6 (binary): payloads of these lengths are echoed.
    @Test(
        "1.1.x and 1.2.x: echoes text and binary of every length form",
        arguments: [0, 125, 126, 127, 65535, 65536])
    func echoesLengths(_ count: Int) async throws {
        try await withEchoWebSocket { client in
            let text = Array(repeating: UInt8(ascii: "*"), count: count)
            try client.send(RawWebSocketFrame(opcode: 1, payload: text))
            try await client.expectMessage(opcode: 1, text)
            let binary = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try client.send(RawWebSocketFrame(opcode: 2, payload: binary))
            try await client.expectMessage(opcode: 2, binary)
            try await client.closeCleanly()
        }
    }

    /// 1.1.8, 1.2.8: 65536 bytes sent in chops of 997.
    @Test func echoesA64KiBMessageSentInChops() async throws {
        try await withEchoWebSocket { client in
            let payload = (0..<65536).map { UInt8(truncatingIfNeeded: $0) }
            try client.send(bytes: RawWebSocketFrame(opcode: 2, payload: payload).encoded(), inChopsOf: 997)
            try await client.expectMessage(opcode: 2, payload)
            try await client.closeCleanly()
        }
    }

    /// 2.1-2.4, 2.6: a ping is answered by a pong with the same payload, up to 125 bytes,
    /// also when its bytes come one at a time.
    @Test(
        "2.1-2.4, 2.6: pongs echo the ping's payload",
        arguments: [
            [], Array("Hello, world!".utf8), [0x00, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0x00, 0xFF],
            Array(repeating: 0xFE, count: 125),
        ])
    func pongs(_ payload: [UInt8]) async throws {
        try await withEchoWebSocket { client in
            try client.send(RawWebSocketFrame(opcode: 9, payload: payload))
            try await client.expectMessage(opcode: 10, payload)
            try client.send(bytes: RawWebSocketFrame(opcode: 9, payload: payload).encoded(), inChopsOf: 1)
            try await client.expectMessage(opcode: 10, payload)
            try await client.closeCleanly()
        }
    }

    /// 2.5: a ping of 126 bytes fails the connection.
    @Test func aPingOf126BytesIs1002() async throws {
        try await withEchoWebSocket { client in
            try client.send(RawWebSocketFrame(opcode: 9, payload: Array(repeating: 0xFE, count: 126)))
            try await client.expectFailed(with: 1002)
        }
    }

    /// 2.7-2.9: an unsolicited pong gets no answer; a ping after it gets its own pong.
    @Test func unsolicitedPongsAreAcceptedSilently() async throws {
        try await withEchoWebSocket { client in
            try client.send(RawWebSocketFrame(opcode: 10))
            try client.send(RawWebSocketFrame(opcode: 10, payload: Array("unsolicited".utf8)))
            try client.send(RawWebSocketFrame(opcode: 9, payload: Array("ping".utf8)))
            try await client.expectMessage(opcode: 10, Array("ping".utf8))
            try await client.closeCleanly()
        }
    }

    /// 2.10, 2.11: ten pings, ten pongs in order, whole or a byte at a time.
    @Test("2.10, 2.11: ten pings, ten pongs", arguments: [nil, 1])
    func tenPings(_ chop: Int?) async throws {
        try await withEchoWebSocket { client in
            let bytes = (0..<10).flatMap {
                RawWebSocketFrame(opcode: 9, payload: Array("payload-\($0)".utf8)).encoded()
            }
            try client.send(bytes: bytes, inChopsOf: chop ?? bytes.count)
            for index in 0..<10 { try await client.expectMessage(opcode: 10, Array("payload-\(index)".utf8)) }
            try await client.closeCleanly()
        }
    }

    /// 3.1-3.7: reserved bits set, on text, binary, ping and close frames; a message before
    /// the bad frame is echoed, nothing after it is answered (3.2: no pong).
    @Test("3.1-3.7: reserved bits fail the connection", arguments: 1...7)
    func reservedBits(_ rsv: Int) async throws {
        try await withEchoWebSocket { client in
            let opcode: UInt8 = [1, 1, 1, 1, 2, 9, 8][rsv - 1]
            let bad = RawWebSocketFrame(rsv: UInt8(rsv), opcode: opcode, payload: opcode == 8 ? [3, 232] : [0x61])
            let bytes =
                RawWebSocketFrame.text("Hello").encoded() + bad.encoded() + RawWebSocketFrame(opcode: 9).encoded()
            try client.send(bytes: bytes, inChopsOf: rsv >= 3 ? 1 : bytes.count)
            try await client.expectText("Hello")
            try await client.expectFailed(with: 1002)
        }
    }

    /// 4.1.1-4.1.5 (3-7), 4.2.1-4.2.5 (11-15): reserved opcodes, with and without payload,
    /// after a message; no pong for the ping after them.
    @Test("4.x: reserved opcodes fail the connection", arguments: [3, 4, 5, 6, 7, 11, 12, 13, 14, 15])
    func reservedOpcodes(_ opcode: Int) async throws {
        try await withEchoWebSocket { client in
            try client.send(
                .text("Hello"), RawWebSocketFrame(opcode: UInt8(opcode), payload: [1, 2]), RawWebSocketFrame(opcode: 9))
            try await client.expectText("Hello")
            try await client.expectFailed(with: 1002)
        }
    }

    /// §5.2: a 64-bit length with its high bit set, and a length not in its shortest form,
    /// fail the connection as soon as the length bytes are in.
    @Test(
        "lengths that break §5.2 are 1002",
        arguments: [
            [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1], [0x82, 0xFE, 0x00, 0x05],
            [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0x01, 0x00],
        ]
            as [[UInt8]])
    func badLengths(_ header: [UInt8]) async throws {
        try await withEchoWebSocket { client in
            try client.send(bytes: header)
            try await client.expectFailed(with: 1002)
        }
    }

    /// §5.1: an unmasked client frame fails the connection.
    @Test func anUnmaskedFrameIs1002() async throws {
        try await withEchoWebSocket { client in
            try client.send(RawWebSocketFrame(opcode: 1, masked: false, payload: Array("Hello".utf8)))
            try await client.expectFailed(with: 1002)
        }
    }
}
