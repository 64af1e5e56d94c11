import MockBackendHTTP
import MockBackendTesting
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

private func frames(_ events: [WebSocketFrameDecoder.Event]) -> [WebSocketFrame] {
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

    // MARK: - §8.1: UTF-8

    @Test func invalidUTF8InOneFrameIs1007() {
        #expect(failureCode(wire(RawWebSocketFrame(opcode: 1, payload: [0xCE, 0xBA, 0xED, 0xA0, 0x80]))) == 1007)
        // Binary messages are not text: any bytes go.
        #expect(failureCode(wire(RawWebSocketFrame(opcode: 2, payload: [0xED, 0xA0, 0x80]))) == nil)
    }

    @Test func aCharacterSplitAcrossFragmentsIsValid() {
        let events = decoderEvents(
            wire(
                RawWebSocketFrame(fin: false, opcode: 1, payload: [0xF0, 0x9F]),
                RawWebSocketFrame(fin: false, opcode: 0, payload: [0x98]), RawWebSocketFrame(opcode: 0, payload: [0x80])
            ))
        #expect(frames(events).count == 3)
    }

    @Test func aMessageEndingInsideACharacterIs1007() {
        #expect(failureCode(wire(RawWebSocketFrame(opcode: 1, payload: [0x61, 0xF0, 0x9F]))) == 1007)
        #expect(
            failureCode(wire(.text("a", fin: false), RawWebSocketFrame(opcode: 0, payload: [0xE2, 0x82]))) == 1007)
    }

    /// Autobahn 6.4.3: one text frame, its bytes arriving in three chops; the second makes
    /// the text invalid. The decoder fails on it, before the third arrives.
    @Test func invalidUTF8FailsBeforeTheFrameIsComplete() {
        let part1: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]
        let part2: [UInt8] = [0xF4, 0x90, 0x80, 0x80]
        let part3 = Array("edited".utf8)
        let bytes = wire(RawWebSocketFrame(opcode: 1, payload: part1 + part2 + part3))
        var decoder = WebSocketFrameDecoder()
        let headerAndPart1 = 6 + part1.count
        #expect(decoder.feed(bytes[..<headerAndPart1]).isEmpty)
        // 0xF4 alone could still start U+10xxxx; 0x90 cannot follow it.
        #expect(decoder.feed(bytes[headerAndPart1..<(headerAndPart1 + 1)]).isEmpty)
        let failed = decoder.feed(bytes[(headerAndPart1 + 1)..<(headerAndPart1 + 2)])
        #expect(failed.count == 1)
        if case .failure(let error)? = failed.first { #expect(error.closeCode == .invalidPayload) }
        #expect(decoder.isFinished)
    }

    /// Autobahn 6.4.1: the same across frames; the second frame fails at once.
    @Test func invalidUTF8FailsAtTheFrameThatMakesItInvalid() {
        var decoder = WebSocketFrameDecoder()
        #expect(decoder.feed(wire(RawWebSocketFrame(fin: false, opcode: 1, payload: [0xCE, 0xBA]))).count == 1)
        let second = decoder.feed(wire(RawWebSocketFrame(fin: false, opcode: 0, payload: [0xF4, 0x90, 0x80, 0x80])))
        #expect(
            second == [
                .failure(
                    WebSocketProtocolError(
                        closeCode: .invalidPayload, detail: "A text message is not UTF-8 (RFC 6455 §8.1)."))
            ])
    }

    // MARK: - §10.4: message size

    @Test func aMessageOverTheLimitIs1009AssoonAsItsHeaderSaysSo() {
        #expect(
            failureCode(
                wire(RawWebSocketFrame(opcode: 2, payload: Array(repeating: 1, count: 100))), maxMessageBytes: 100)
                == nil)
        #expect(
            failureCode(
                wire(RawWebSocketFrame(opcode: 2, payload: Array(repeating: 1, count: 101))), maxMessageBytes: 100)
                == 1009)
        // The header alone: no payload byte has to arrive.
        #expect(failureCode([0x82, 0xFE, 0x01, 0x00], maxMessageBytes: 255) == 1009)
        // Across fragments, the sum counts; control frames between them do not.
        let fragmented = wire(
            RawWebSocketFrame(fin: false, opcode: 2, payload: Array(repeating: 1, count: 60)),
            RawWebSocketFrame(opcode: 9, payload: Array(repeating: 2, count: 60)),
            RawWebSocketFrame(opcode: 0, payload: Array(repeating: 1, count: 41)))
        #expect(failureCode(fragmented, maxMessageBytes: 100) == 1009)
        #expect(failureCode(fragmented, maxMessageBytes: 101) == nil)
        // Each message counts from zero.
        let two = wire(
            RawWebSocketFrame(opcode: 2, payload: Array(repeating: 1, count: 100)),
            RawWebSocketFrame(opcode: 2, payload: Array(repeating: 1, count: 100)))
        #expect(failureCode(two, maxMessageBytes: 100) == nil)
    }

    // MARK: - §5.5.1, §7.4: close frames

    @Test func aCloseFrameOfOneByteIs1002() {
        #expect(failureCode(wire(RawWebSocketFrame(opcode: 8, payload: [0x03]))) == 1002)
    }

    @Test(
        "close codes that must not be sent are 1002 (Autobahn 7.9.x)",
        arguments: [UInt16(0), 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535])
    func invalidCloseCodes(_ code: UInt16) {
        #expect(failureCode(wire(.close(code: code))) == 1002)
    }

    @Test(
        "valid close codes are taken (Autobahn 7.7.x)",
        arguments: [
            UInt16(1000), 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999,
        ])
    func validCloseCodes(_ code: UInt16) {
        #expect(
            decoderEvents(wire(.close(code: code))) == [
                .frame(WebSocketFrame(opcode: .close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)]))
            ])
    }

    @Test func aCloseReasonMustBeUTF8AndFitAControlFrame() {
        #expect(
            failureCode(wire(RawWebSocketFrame(opcode: 8, payload: [0x03, 0xE8, 0xCE, 0xBA, 0xED, 0xA0, 0x80]))) == 1007
        )
        #expect(failureCode(wire(.close(code: 1000, reason: String(repeating: "*", count: 123)))) == nil)
        #expect(failureCode(wire(.close(code: 1000, reason: String(repeating: "*", count: 124)))) == 1002)
        #expect(failureCode(wire(.close(code: nil))) == nil)
    }
}
