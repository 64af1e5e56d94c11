import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// The rules of whole messages: UTF-8 (§8.1), size (§10.4), the close payload (§5.5.1, §7.4).
@Suite("WebSocketFrameDecoder: messages")
struct WebSocketFrameDecoderMessageTests {
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
