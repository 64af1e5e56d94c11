import Foundation
import ServerSentEvents
import Testing

/// Parses `input` fed in pieces cut at `cuts`.
private func parse(_ input: [UInt8], cuts: [Int] = []) -> (output: [SSEParserOutput], lastEventID: String) {
    var parser = SSEParser()
    var output: [SSEParserOutput] = []
    var start = 0
    for cut in cuts + [input.count] where cut >= start {
        output += parser.feed(input[start..<cut])
        start = cut
    }
    return (output, parser.lastEventID)
}

private func events(_ output: [SSEParserOutput]) -> [ServerSentEvent] {
    output.compactMap { if case .event(let event) = $0 { event } else { nil } }
}

/// Every rule of WHATWG HTML §9.2.6 as an input and what it must give.
struct ParserCase: Sendable, CustomTestStringConvertible {
    let name: String
    let input: [UInt8]
    let expected: [SSEParserOutput]
    let lastEventID: String

    init(_ name: String, _ input: String, _ expected: [SSEParserOutput], lastEventID: String = "") {
        self.init(name, Array(input.utf8), expected, lastEventID: lastEventID)
    }

    init(_ name: String, _ input: [UInt8], _ expected: [SSEParserOutput], lastEventID: String = "") {
        self.name = name
        self.input = input
        self.expected = expected
        self.lastEventID = lastEventID
    }

    var testDescription: String { name }
}

private func message(_ data: String, type: String? = nil, id: String? = nil) -> SSEParserOutput {
    .event(ServerSentEvent(type: type, data: data, id: id))
}

@Suite("SSEParser")
struct SSEParserTests {
    static let cases: [ParserCase] = [
        ParserCase("LF line ends", "data: a\n\n", [message("a")]),
        ParserCase("CRLF line ends", "data: a\r\n\r\n", [message("a")]),
        ParserCase("CR line ends", "data: a\r\rdata: b\r\r", [message("a"), message("b")]),
        ParserCase("mixed line ends", "data: a\r\ndata: b\rdata: c\n\r\n", [message("a\nb\nc")]),
        ParserCase("one leading BOM is dropped", [0xEF, 0xBB, 0xBF] + Array("data: a\n\n".utf8), [message("a")]),
        ParserCase(
            "a second BOM is kept", [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("data: a\n\n".utf8), []),
        ParserCase("comment", ": hello\ndata: a\n\n", [.comment("hello"), message("a")]),
        ParserCase("comment without space", ":keep-alive\n\n", [.comment("keep-alive")]),
        ParserCase("only one space after the colon is removed", "data:  two\n\n", [message(" two")]),
        ParserCase("no space after the colon", "data:x\n\n", [message("x")]),
        ParserCase("multi-line data joined with LF", "data: a\ndata: b\ndata:\n\n", [message("a\nb\n")]),
        ParserCase("field without colon has empty value", "data\n\n", [message("")]),
        ParserCase("event type", "event: update\ndata: x\n\n", [message("x", type: "update")]),
        ParserCase(
            "event type resets after dispatch", "event: a\ndata: 1\n\ndata: 2\n\n",
            [
                message("1", type: "a"), message("2"),
            ]),
        ParserCase("id", "id: 7\ndata: x\n\n", [message("x", id: "7")], lastEventID: "7"),
        ParserCase(
            "id persists to later events", "id: 7\ndata: x\n\ndata: y\n\n",
            [
                message("x", id: "7"), message("y", id: "7"),
            ], lastEventID: "7"),
        ParserCase(
            "id containing NUL is ignored", "id: 1\ndata: a\n\nid: 2\u{0}x\ndata: b\n\n",
            [
                message("a", id: "1"), message("b", id: "1"),
            ], lastEventID: "1"),
        ParserCase("empty id resets", "id: 5\ndata: a\n\nid\ndata: b\n\n", [message("a", id: "5"), message("b")]),
        ParserCase("id-only block updates the last event id without dispatching", "id: 9\n\n", [], lastEventID: "9"),
        ParserCase("retry digits", "retry: 1500\n\n", [.retry(1500)]),
        ParserCase("retry with other characters is ignored", "retry: 15s\nretry: -1\nretry: 1.5\nretry:\n\n", []),
        ParserCase("unknown fields are ignored", "foo: bar\ndata: x\n\n", [message("x")]),
        ParserCase("field names are case-sensitive", "Data: x\n\n", []),
        ParserCase("incomplete last event is discarded", "data: a\n\ndata: b\n", [message("a")]),
        ParserCase("empty data block does not dispatch", "event: x\n\n", []),
        ParserCase("multi-byte characters", "data: ünïcödé 🎉\n\n", [message("ünïcödé 🎉")]),
        ParserCase(
            "invalid UTF-8 becomes U+FFFD", Array("data: a".utf8) + [0xFF] + Array("b\n\n".utf8),
            [message("a\u{FFFD}b")]),
        ParserCase("colon in value is kept", "data: a:b: c\n\n", [message("a:b: c")]),
    ]

    @Test("follows the rule fed whole, byte by byte and split at every index", arguments: cases)
    func rule(_ testCase: ParserCase) {
        let whole = parse(testCase.input)
        #expect(whole.output == testCase.expected)
        #expect(whole.lastEventID == testCase.lastEventID)
        let bytewise = parse(testCase.input, cuts: Array(0..<testCase.input.count))
        #expect(bytewise.output == testCase.expected)
        for index in 0...testCase.input.count {
            let split = parse(testCase.input, cuts: [index])
            #expect(split.output == testCase.expected, "split at \(index)")
            #expect(split.lastEventID == testCase.lastEventID)
        }
    }

    @Test func resetDiscardsAPartialEventButKeepsTheLastEventID() {
        var parser = SSEParser()
        _ = parser.feed(Array("id: 3\ndata: a\n\ndata: partial".utf8))
        parser.reset()
        #expect(parser.lastEventID == "3")
        #expect(events(parser.feed(Array("\n\ndata: b\n\n".utf8))) == [ServerSentEvent(data: "b", id: "3")])
    }

    @Test func crAtTheEndOfAChunkThenLFIsOneLineEnd() {
        var parser = SSEParser()
        #expect(parser.feed(Array("data: a\r".utf8)).isEmpty)
        #expect(events(parser.feed(Array("\n\r\n".utf8))) == [ServerSentEvent(data: "a")])
    }
}

@Suite("SSEEncoder")
struct SSEEncoderTests {
    @Test func encodesFieldsInOrder() {
        let bytes = SSEEncoder.encode(ServerSentEvent(type: "progress", data: "{\"a\":1}", id: "4"), retry: 5000)
        #expect(String(decoding: bytes, as: UTF8.self) == "retry: 5000\nid: 4\nevent: progress\ndata: {\"a\":1}\n\n")
    }

    @Test func paddingHasTheRequestedSizeAndParsesAsAComment() {
        let padding = SSEEncoder.padding(size: 2048)
        #expect(padding.count == 2048)
        var parser = SSEParser()
        #expect(events(parser.feed(padding)).isEmpty)
    }

    /// Round trip over generated events: whatever the data, type and id hold, the parser
    /// gives back exactly what was encoded (line ends in data normalised to LF).
    @Test func roundTripsGeneratedEvents() {
        var generator = SplitMix64(seed: 42)
        let alphabet: [String] = ["a", "Z", " ", ":", "\n", "\r", "\r\n", "é", "🎉", "data:", "id", "\u{0}", "\t"]
        for _ in 0..<500 {
            var sent: [ServerSentEvent] = []
            var wire: [UInt8] = []
            for _ in 0..<Int(generator.next() % 5 + 1) {
                let data = (0..<Int(generator.next() % 12)).map { _ in
                    alphabet[Int(generator.next() % UInt64(alphabet.count))]
                }
                .joined()
                let type = generator.next() % 2 == 0 ? nil : "t\(generator.next() % 100)"
                let id = generator.next() % 3 == 0 ? nil : "\(generator.next() % 1000)"
                let event = ServerSentEvent(type: type, data: data, id: id)
                sent.append(event)
                wire += SSEEncoder.encode(event)
                if generator.next() % 4 == 0 { wire += SSEEncoder.comment("ping\nline two") }
            }
            let cut = Int(generator.next() % UInt64(wire.count + 1))
            var lastID: String?
            let expected = sent.map { event -> ServerSentEvent in
                if let id = event.id { lastID = id }
                let data = event.data.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(
                    of: "\r", with: "\n")
                return ServerSentEvent(type: event.type, data: data, id: lastID)
            }
            #expect(events(parse(wire, cuts: [cut]).output) == expected)
        }
    }
}

/// A small deterministic generator, so a failing round trip reproduces.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
