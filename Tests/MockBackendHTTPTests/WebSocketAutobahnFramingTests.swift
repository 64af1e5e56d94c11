import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// Autobahn testsuite cases 1.x (framing), 2.x (pings and pongs), 3.x (reserved bits) and
/// 4.x (opcodes), over a real socket against the echo route. Each test runs its cases one
/// after the other, each on a connection of its own.
@Suite("WebSocket Autobahn 1-4: framing, pings, reserved bits, opcodes")
struct WebSocketAutobahnFramingTests {
    /// 1.1.1-1.1.6 (text) and 1.2.1-1.2.6 (binary): payloads of every length form are echoed.
    @Test func echoesTextAndBinaryOfEveryLengthForm() async throws {
        try await forEachCase([0, 125, 126, 127, 65535, 65536]) { count, client in
            let text = Array(repeating: UInt8(ascii: "*"), count: count)
            try client.send(RawWebSocketFrame(opcode: 1, payload: text))
            try await client.expectMessage(opcode: 1, text, "text of \(count)")
            let binary = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try client.send(RawWebSocketFrame(opcode: 2, payload: binary))
            try await client.expectMessage(opcode: 2, binary, "binary of \(count)")
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
    @Test func pongsEchoThePingsPayload() async throws {
        let payloads: [[UInt8]] = [
            [], Array("Hello, world!".utf8), [0x00, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0x00, 0xFF],
            Array(repeating: 0xFE, count: 125),
        ]
        try await forEachCase(payloads) { payload, client in
            try client.send(RawWebSocketFrame(opcode: 9, payload: payload))
            try await client.expectMessage(opcode: 10, payload, "\(payload.count) bytes")
            try client.send(bytes: RawWebSocketFrame(opcode: 9, payload: payload).encoded(), inChopsOf: 1)
            try await client.expectMessage(opcode: 10, payload, "\(payload.count) bytes, a byte at a time")
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
    @Test func tenPingsTenPongs() async throws {
        try await forEachCase([0, 1]) { chop, client in
            let bytes = (0..<10).flatMap {
                RawWebSocketFrame(opcode: 9, payload: Array("payload-\($0)".utf8)).encoded()
            }
            try client.send(bytes: bytes, inChopsOf: chop == 0 ? bytes.count : chop)
            for index in 0..<10 {
                try await client.expectMessage(opcode: 10, Array("payload-\(index)".utf8), "chops of \(chop)")
            }
            try await client.closeCleanly()
        }
    }

    /// 3.1-3.7: reserved bits set, on text, binary, ping and close frames; a message before
    /// the bad frame is echoed, nothing after it is answered (3.2: no pong).
    @Test func reservedBitsFailTheConnection() async throws {
        try await forEachCase(Array(1...7)) { rsv, client in
            let opcode: UInt8 = [1, 1, 1, 1, 2, 9, 8][rsv - 1]
            let bad = RawWebSocketFrame(rsv: UInt8(rsv), opcode: opcode, payload: opcode == 8 ? [3, 232] : [0x61])
            let bytes =
                RawWebSocketFrame.text("Hello").encoded() + bad.encoded() + RawWebSocketFrame(opcode: 9).encoded()
            try client.send(bytes: bytes, inChopsOf: rsv >= 3 ? 1 : bytes.count)
            try await client.expectText("Hello", "RSV \(rsv)")
            try await client.expectFailed(with: 1002, "RSV \(rsv)")
        }
    }

    /// 4.1.1-4.1.5 (3-7), 4.2.1-4.2.5 (11-15): reserved opcodes, with and without payload,
    /// after a message; no pong for the ping after them.
    @Test func reservedOpcodesFailTheConnection() async throws {
        try await forEachCase([3, 4, 5, 6, 7, 11, 12, 13, 14, 15]) { opcode, client in
            let payload: [UInt8] = opcode % 2 == 0 ? [] : [1, 2]
            try client.send(
                .text("Hello"), RawWebSocketFrame(opcode: UInt8(opcode), payload: payload), RawWebSocketFrame(opcode: 9)
            )
            try await client.expectText("Hello", "opcode \(opcode)")
            try await client.expectFailed(with: 1002, "opcode \(opcode)")
        }
    }

    /// §5.2: a 64-bit length with its high bit set, and a length not in its shortest form,
    /// fail the connection as soon as the length bytes are in.
    @Test func lengthsThatBreakTheRulesAre1002() async throws {
        let headers: [[UInt8]] = [
            [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1], [0x82, 0xFE, 0x00, 0x05],
            [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0x01, 0x00],
        ]
        try await forEachCase(headers) { header, client in
            try client.send(bytes: header)
            try await client.expectFailed(with: 1002, "\(header)")
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
