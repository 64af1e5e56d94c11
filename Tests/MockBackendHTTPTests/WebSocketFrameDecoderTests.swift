import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// Feeds `input` to a fresh decoder in pieces cut at `cuts` and returns every event.
func decoderEvents(_ input: [UInt8], cuts: [Int] = [], maxMessageBytes: Int = 1 << 20) -> [WebSocketFrameDecoder.Event]
{
    var decoder = WebSocketFrameDecoder(maxMessageBytes: maxMessageBytes)
    var events: [WebSocketFrameDecoder.Event] = []
    var start = 0
    for cut in cuts + [input.count] where cut >= start {
        events += decoder.feed(input[start..<cut])
        start = cut
    }
    return events
}

/// The wire bytes of client frames, masked.
func wire(_ frames: RawWebSocketFrame...) -> [UInt8] {
    frames.flatMap { $0.encoded() }
}

/// The close code the input fails with, if it fails.
func failureCode(_ input: [UInt8], maxMessageBytes: Int = 1 << 20) -> UInt16? {
    for event in decoderEvents(input, maxMessageBytes: maxMessageBytes) {
        if case .failure(let error) = event { return error.closeCode.rawValue }
    }
    return nil
}

func frames(_ events: [WebSocketFrameDecoder.Event]) -> [WebSocketFrame] {
    events.compactMap { if case .frame(let frame) = $0 { frame } else { nil } }
}

@Suite("WebSocketFrameDecoder")
struct WebSocketFrameDecoderTests {
    static let corpus: [(name: String, bytes: [UInt8])] = [
        ("text", wire(.text("Hello"))),
        (
            "lengths",
            wire(RawWebSocketFrame(opcode: 2, payload: Array(repeating: 7, count: 126)), .text(""), .text("x"))
        ),
        (
            "fragments and pings",
            wire(
                .text("κό", fin: false), RawWebSocketFrame(opcode: 9, payload: [1, 2]),
                RawWebSocketFrame(fin: false, opcode: 0, payload: Array("σμ".utf8)),
                RawWebSocketFrame(opcode: 10), RawWebSocketFrame(opcode: 0, payload: Array("ε".utf8)))
        ),
        ("text then close", wire(.text("bye"), .close(code: 1000, reason: "done"), .text("ignored"))),
        ("unmasked", wire(.text("a"), RawWebSocketFrame(opcode: 1, masked: false, payload: [0x61]))),
        ("reserved bits", wire(.text("a"), RawWebSocketFrame(rsv: 4, opcode: 1))),
        (
            "invalid UTF-8 across fragments",
            wire(.text("κ", fin: false), RawWebSocketFrame(opcode: 0, payload: [0xF4, 0x90, 0x80, 0x80]))
        ),
        ("continuation without start", wire(RawWebSocketFrame(opcode: 0, payload: [1]))),
        ("close with a bad code", wire(.close(code: 1005))),
        ("close with a bad reason", wire(RawWebSocketFrame(opcode: 8, payload: [3, 232, 0xC0, 0x80]))),
        ("long ping", wire(RawWebSocketFrame(opcode: 9, payload: Array(repeating: 1, count: 126)))),
    ]

    @Test("gives the same events fed whole, byte by byte, and split at every index", arguments: corpus)
    func splitInvariance(_ sample: (name: String, bytes: [UInt8])) {
        let whole = decoderEvents(sample.bytes)
        #expect(!whole.isEmpty)
        #expect(decoderEvents(sample.bytes, cuts: Array(0..<sample.bytes.count)) == whole, "byte by byte")
        for index in 0...sample.bytes.count {
            #expect(decoderEvents(sample.bytes, cuts: [index]) == whole, "split at \(index)")
        }
    }

    @Test(
        "decodes the lengths of Autobahn 1.x in their three forms",
        arguments: [0, 1, 125, 126, 127, 128, 65535, 65536, 100_000])
    func lengths(_ count: Int) {
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0) }
        let events = decoderEvents(wire(RawWebSocketFrame(opcode: 2, payload: payload)))
        #expect(events == [.frame(WebSocketFrame(opcode: .binary, payload: payload))])
    }

    @Test func fragmentsAndControlFramesBetweenThemComeOutInOrder() {
        let events = decoderEvents(Self.corpus[2].bytes)
        #expect(
            frames(events) == [
                WebSocketFrame(fin: false, opcode: .text, payload: Array("κό".utf8)),
                WebSocketFrame(opcode: .ping, payload: [1, 2]),
                WebSocketFrame(fin: false, opcode: .continuation, payload: Array("σμ".utf8)),
                WebSocketFrame(opcode: .pong),
                WebSocketFrame(opcode: .continuation, payload: Array("ε".utf8)),
            ])
    }

    @Test func nothingAfterACloseFrameCounts() {
        var decoder = WebSocketFrameDecoder()
        let events = decoder.feed(wire(.close(code: 1000, reason: "done"), RawWebSocketFrame(opcode: 3)))
        #expect(frames(events).map(\.opcode) == [.close])
        #expect(decoder.isFinished)
        #expect(decoder.feed(wire(.text("late"))).isEmpty)
    }

    @Test func nothingAfterAFailureCounts() {
        var decoder = WebSocketFrameDecoder()
        let events = decoder.feed(wire(RawWebSocketFrame(opcode: 1, masked: false), .text("next")))
        #expect(events.count == 1)
        #expect(decoder.isFinished)
        #expect(decoder.feed(wire(.text("late"))).isEmpty)
    }

    // MARK: - §5.1, §5.2: masking, reserved bits, opcodes, lengths

    @Test func anUnmaskedFrameIs1002() {
        #expect(failureCode(wire(RawWebSocketFrame(opcode: 1, masked: false, payload: [0x61]))) == 1002)
        // Fail fast: the second byte is enough.
        #expect(failureCode([0x81, 0x01]) == 1002)
    }

    @Test("reserved bits without an extension are 1002 (Autobahn 3.x)", arguments: 1...7)
    func reservedBits(_ rsv: Int) {
        #expect(failureCode(wire(RawWebSocketFrame(rsv: UInt8(rsv), opcode: 1, payload: [0x61]))) == 1002)
        #expect(failureCode(wire(RawWebSocketFrame(rsv: UInt8(rsv), opcode: 8))) == 1002)
        // The first byte is enough.
        #expect(failureCode([0x81 | UInt8(rsv) << 4]) == 1002)
    }

    @Test("reserved opcodes are 1002 (Autobahn 4.x)", arguments: [3, 4, 5, 6, 7, 11, 12, 13, 14, 15])
    func reservedOpcodes(_ opcode: Int) {
        #expect(failureCode(wire(RawWebSocketFrame(opcode: UInt8(opcode)))) == 1002)
        #expect(failureCode(wire(RawWebSocketFrame(opcode: UInt8(opcode), payload: [1, 2, 3]))) == 1002)
    }

    @Test func aLengthWithTheHighBitSetIs1002() {
        let header: [UInt8] = [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1]
        #expect(failureCode(header) == 1002)
        #expect(failureCode(Array(header.prefix(3))) == 1002)
    }

    @Test func aLengthNotInItsShortestFormIs1002() {
        #expect(failureCode([0x82, 0xFE, 0x00, 0x7D] + [1, 2, 3, 4]) == 1002)
        #expect(failureCode([0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + [1, 2, 3, 4]) == 1002)
        #expect(failureCode([0x82, 0xFE, 0x00, 0x7E, 1, 2, 3, 4] + Array(repeating: 0, count: 126)) == nil)
    }

    // MARK: - §5.5: control frames

    @Test func aControlFrameOf125BytesIsFineAnd126Is1002() {
        let long = Array(repeating: UInt8(0xFE), count: 125)
        #expect(frames(decoderEvents(wire(RawWebSocketFrame(opcode: 9, payload: long)))).first?.payload == long)
        for opcode: UInt8 in [8, 9, 10] {
            #expect(failureCode(wire(RawWebSocketFrame(opcode: opcode, payload: long + [0]))) == 1002)
        }
        // The length byte is enough: no need to wait for 126 bytes.
        #expect(failureCode([0x89, 0xFE]) == 1002)
    }

    @Test("a fragmented control frame is 1002 (Autobahn 5.1, 5.2)", arguments: [UInt8(8), 9, 10])
    func fragmentedControl(_ opcode: UInt8) {
        #expect(failureCode(wire(RawWebSocketFrame(fin: false, opcode: opcode, payload: [1]))) == 1002)
        #expect(failureCode([opcode]) == 1002)
    }

    // MARK: - §5.4: fragmentation

    @Test func aContinuationWithoutAStartIs1002() {
        #expect(failureCode(wire(RawWebSocketFrame(opcode: 0, payload: [0x61]))) == 1002)
        #expect(failureCode(wire(RawWebSocketFrame(fin: false, opcode: 0, payload: [0x61]))) == 1002)
        // Autobahn 5.15: after a whole fragmented message there is nothing to continue.
        let afterMessage = wire(
            .text("a", fin: false), RawWebSocketFrame(opcode: 0, payload: [0x62]),
            RawWebSocketFrame(fin: false, opcode: 0, payload: [0x63]))
        #expect(failureCode(afterMessage) == 1002)
        #expect(frames(decoderEvents(afterMessage)).count == 2)
    }

    @Test func aNewMessageInsideAFragmentedOneIs1002() {
        #expect(failureCode(wire(.text("a", fin: false), .text("b"))) == 1002)
        #expect(failureCode(wire(.text("a", fin: false), RawWebSocketFrame(opcode: 2, payload: [1]))) == 1002)
    }
}
