import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// Autobahn testsuite cases 5.x (fragmentation) and 6.x (UTF-8), over a real socket
/// against the echo route. Each test runs its cases one after the other, each on a
/// connection of its own.
@Suite("WebSocket Autobahn 5-6: fragmentation, UTF-8")
struct WebSocketAutobahnFragmentationTests {
    private static func fragment(_ opcode: UInt8, _ text: String, fin: Bool) -> RawWebSocketFrame {
        RawWebSocketFrame(fin: fin, opcode: opcode, payload: Array(text.utf8))
    }

    /// One frame per byte of `bytes`: every character split across frames.
    private static func oneByteFragments(_ bytes: [UInt8]) -> [UInt8] {
        bytes.indices.flatMap { index in
            RawWebSocketFrame(fin: index == bytes.count - 1, opcode: index == 0 ? 1 : 0, payload: [bytes[index]])
                .encoded()
        }
    }

    /// 5.1, 5.2: a fragmented ping or pong fails the connection.
    @Test func fragmentedControlFramesAre1002() async throws {
        try await forEachCase([UInt8(9), 10]) { opcode, client in
            try client.send(Self.fragment(opcode, "fragment1", fin: false), Self.fragment(0, "fragment2", fin: true))
            try await client.expectFailed(with: 1002, "opcode \(opcode)")
        }
    }

    /// 5.3-5.5: a text message in two fragments, whole, in chops, a byte at a time.
    @Test func fragmentsAreJoined() async throws {
        try await forEachCase([0, 3, 1]) { chop, client in
            let bytes =
                Self.fragment(1, "fragment1", fin: false).encoded() + Self.fragment(0, "fragment2", fin: true).encoded()
            try client.send(bytes: bytes, inChopsOf: chop == 0 ? bytes.count : chop)
            try await client.expectText("fragment1fragment2", "chops of \(chop)")
            try await client.closeCleanly()
        }
    }

    /// 5.6-5.8: a ping between the fragments is answered at once, before the message.
    @Test func aPingBetweenFragmentsIsAnsweredFirst() async throws {
        try await forEachCase([0, 1]) { chop, client in
            let bytes =
                Self.fragment(1, "fragment1", fin: false).encoded()
                + RawWebSocketFrame(opcode: 9, payload: Array("ping payload".utf8)).encoded()
                + Self.fragment(0, "fragment2", fin: true).encoded()
            try client.send(bytes: bytes, inChopsOf: chop == 0 ? bytes.count : chop)
            try await client.expectMessage(opcode: 10, Array("ping payload".utf8), "chops of \(chop)")
            try await client.expectText("fragment1fragment2", "chops of \(chop)")
            try await client.closeCleanly()
        }
    }

    /// 5.9-5.14: a continuation frame (FIN set or not) with nothing to continue.
    @Test func aContinuationWithoutAStartIs1002() async throws {
        try await forEachCase([true, false]) { fin, client in
            try client.send(Self.fragment(0, "non-continuation payload", fin: fin), .text("Hello, world!"))
            try await client.expectFailed(with: 1002, "FIN \(fin)")
        }
    }

    /// 5.15: a whole fragmented message, then a continuation with nothing to continue.
    @Test func continuationAfterAFinishedMessage() async throws {
        try await withEchoWebSocket { client in
            try client.send(
                Self.fragment(1, "fragment1", fin: false), Self.fragment(0, "fragment2", fin: true),
                Self.fragment(0, "fragment3", fin: false), Self.fragment(1, "fragment4", fin: true))
            try await client.expectText("fragment1fragment2")
            try await client.expectFailed(with: 1002)
        }
    }

    /// 5.18: a text frame where a continuation should come.
    @Test func aNewMessageInsideAFragmentedOne() async throws {
        try await withEchoWebSocket { client in
            try client.send(Self.fragment(1, "fragment1", fin: false), Self.fragment(1, "fragment2", fin: true))
            try await client.expectFailed(with: 1002)
        }
    }

    /// 5.19, 5.20: five fragments with pings between them and a pause in the middle; the
    /// pongs come as the pings do, the message once it is whole.
    @Test func fragmentsWithPingsAndAPause() async throws {
        try await withEchoWebSocket { client in
            try client.send(
                Self.fragment(1, "fragment1", fin: false), Self.fragment(0, "fragment2", fin: false),
                RawWebSocketFrame(opcode: 9, payload: Array("pongme 1!".utf8)))
            try await client.expectMessage(opcode: 10, Array("pongme 1!".utf8))
            try await client.expectSilence()
            try client.send(
                Self.fragment(0, "fragment3", fin: false), Self.fragment(0, "fragment4", fin: false),
                RawWebSocketFrame(opcode: 9, payload: Array("pongme 2!".utf8)), Self.fragment(0, "fragment5", fin: true)
            )
            try await client.expectMessage(opcode: 10, Array("pongme 2!".utf8))
            try await client.expectText("fragment1fragment2fragment3fragment4fragment5")
            try await client.closeCleanly()
        }
    }

    /// 6.1.1-6.1.3: empty text messages and empty fragments.
    @Test func emptyTextMessagesAndFragments() async throws {
        try await withEchoWebSocket { client in
            try client.send(.text(""))
            try await client.expectText("")
            try client.send(
                Self.fragment(1, "", fin: false), Self.fragment(0, "", fin: false), Self.fragment(0, "", fin: true))
            try await client.expectText("")
            try client.send(
                Self.fragment(1, "", fin: false), Self.fragment(0, "middle", fin: false),
                Self.fragment(0, "", fin: true))
            try await client.expectText("middle")
            try await client.closeCleanly()
        }
    }

    /// 6.2.1-6.2.4, 6.5, 6.6: valid UTF-8 whole, a byte at a time, and in one-byte
    /// fragments that split every character.
    @Test func validUTF8HoweverItIsCut() async throws {
        try await forEachCase(["Hello-µ@ßöäüàá-UTF-8!!", "κόσμε", "𝄞 \u{10FFFF}\u{FFFF}\u{0080}"]) { text, client in
            let bytes = Array(text.utf8)
            try client.send(RawWebSocketFrame(opcode: 1, payload: bytes))
            try await client.expectText(text, "whole")
            try client.send(bytes: RawWebSocketFrame(opcode: 1, payload: bytes).encoded(), inChopsOf: 1)
            try await client.expectText(text, "a byte at a time")
            try client.send(bytes: Self.oneByteFragments(bytes))
            try await client.expectText(text, "one-byte fragments")
            try await client.closeCleanly()
        }
    }

    /// 6.3.1, 6.3.2, 6.8-6.21 (a sample): invalid UTF-8, whole or in one-byte fragments, is
    /// 1007.
    @Test func invalidUTF8Is1007() async throws {
        let samples: [[UInt8]] = [
            [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64],
            [0xF8, 0x88, 0x80, 0x80, 0x80],  // 6.8: five-byte sequences
            [0xC0, 0xAF],  // 6.9: an overlong "/"
            [0xF4, 0x90, 0x80, 0x80],  // past U+10FFFF
            [0xED, 0xBF, 0xBF],  // a lone surrogate
            [0x80],  // 6.12: a lone continuation byte
            [0xC0, 0x20],  // 6.13: a lead byte and a space
            [0xE0, 0x80],  // 6.14: cut short at the end of the message
            [0xFE],  // 6.16: impossible bytes
        ]
        let cases = samples.flatMap { [($0, false), ($0, true)] }
        try await forEachCase(cases) { sample, client in
            let (bytes, fragmented) = sample
            try client.send(
                bytes: fragmented
                    ? Self.oneByteFragments(bytes) : RawWebSocketFrame(opcode: 1, payload: bytes).encoded())
            try await client.expectFailed(with: 1007, "\(bytes), fragmented: \(fragmented)")
        }
    }

    private static let part1: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]
    private static let part2: [UInt8] = [0xF4, 0x90, 0x80, 0x80]
    private static let part3: [UInt8] = Array("edited".utf8)

    /// 6.4.1, 6.4.2: three frames, the second invalid; the server fails the connection on
    /// the second (6.4.2: on its first invalid byte), while the third is still unsent.
    @Test func failFastOnTheFrameThatMakesTheTextInvalid() async throws {
        try await forEachCase([4, 2]) { part2Length, client in
            try client.send(RawWebSocketFrame(fin: false, opcode: 1, payload: Self.part1))
            try await client.expectSilence()
            try client.send(RawWebSocketFrame(fin: false, opcode: 0, payload: Array(Self.part2.prefix(part2Length))))
            try await client.expectFailed(with: 1007, "second part of \(part2Length) bytes")
        }
    }

    /// 6.4.3, 6.4.4: one frame whose bytes come in three chops; the server fails the
    /// connection on the second chop, before the frame is complete.
    @Test func failFastInsideOneFrame() async throws {
        try await forEachCase([4, 2]) { part2Length, client in
            let frame = RawWebSocketFrame(opcode: 1, payload: Self.part1 + Self.part2 + Self.part3).encoded()
            let firstChop = 6 + Self.part1.count
            try client.send(bytes: Array(frame[..<firstChop]))
            try await client.expectSilence()
            try client.send(bytes: Array(frame[firstChop..<(firstChop + part2Length)]))
            try await client.expectFailed(with: 1007, "second chop of \(part2Length) bytes")
        }
    }
}
