import ServerSentEvents
import Testing

/// One web-platform-tests `eventsource/format-*` case: the body its server resource
/// sends, and what a conforming parser dispatches from it.
struct FormatCase: Sendable, CustomTestStringConvertible {
    let name: String
    let body: [UInt8]
    let events: [ServerSentEvent]
    let retries: [Int]
    let lastEventID: String

    init(
        _ name: String, _ body: String, _ events: [ServerSentEvent], retries: [Int] = [], lastEventID: String = ""
    ) {
        self.init(name, Array(body.utf8), events, retries: retries, lastEventID: lastEventID)
    }

    init(_ name: String, _ body: [UInt8], _ events: [ServerSentEvent], retries: [Int] = [], lastEventID: String = "") {
        self.name = name
        self.body = body
        self.events = events
        self.retries = retries
        self.lastEventID = lastEventID
    }

    var testDescription: String { name }
}

/// What a parser made of `body` fed in pieces cut at `cuts`.
private func run(_ body: [UInt8], cuts: [Int], parser: inout SSEParser) -> ([ServerSentEvent], [Int]) {
    var events: [ServerSentEvent] = []
    var retries: [Int] = []
    var start = 0
    for cut in cuts + [body.count] where cut >= start {
        for output in parser.feed(body[start..<cut]) {
            switch output {
            case .event(let event): events.append(event)
            case .retry(let milliseconds): retries.append(milliseconds)
            case .comment, .limitExceeded: break
            }
        }
        start = cut
    }
    return (events, retries)
}

/// Every way of cutting a body the suite feeds: whole, byte by byte, and in two at each index.
private func cuttings(of body: [UInt8]) -> [[Int]] {
    [[], Array(0..<body.count)] + (0...body.count).map { [$0] }
}

private let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
private let longComment = String(repeating: "x", count: 2048)

@Suite("web-platform-tests eventsource/format-*")
struct WPTFormatTests {
    /// The resources append their line ends to the message: `newline=none` adds one LF,
    /// the default adds three.
    static let cases: [FormatCase] = [
        FormatCase(
            "format-bom: one leading BOM is stripped, a later one is part of a field name",
            bom + Array("data:1\n\n".utf8) + bom + Array("data:2\n\ndata:3\n\n\n".utf8),
            [ServerSentEvent(data: "1"), ServerSentEvent(data: "3")]),
        FormatCase(
            "format-bom-2: of two leading BOMs the second spoils the first line",
            bom + bom + Array("data:1\n\ndata:2\n\ndata:3\n\n\n".utf8),
            [ServerSentEvent(data: "2"), ServerSentEvent(data: "3")]),
        FormatCase(
            "format-comments: comments between data lines, with every line end",
            "data:1\r:\u{0}\n:\r\ndata:2\n:\(longComment)\rdata:3\n:data:fail\r:\(longComment)\ndata:4\n\n",
            [ServerSentEvent(data: "1\n2\n3\n4")]),
        FormatCase(
            "format-data-before-final-empty-line: the unterminated event and its id are dropped",
            "retry:1000\ndata:test1\n\nid:test\ndata:test2\n", [ServerSentEvent(data: "test1")], retries: [1000]),
        FormatCase(
            "format-field-data: empty, valueless and plain data fields", "data:\n\ndata\ndata\n\ndata:test\n\n\n",
            [ServerSentEvent(data: ""), ServerSentEvent(data: "\n"), ServerSentEvent(data: "test")]),
        FormatCase(
            "format-field-event: a custom type, then the default again", "event:test\ndata:x\n\ndata:x\n\n\n",
            [ServerSentEvent(type: "test", data: "x"), ServerSentEvent(data: "x")]),
        FormatCase(
            "format-field-event-empty: an empty type is the default type", "event: \ndata:data\n\n\n",
            [ServerSentEvent(data: "data")]),
        FormatCase(
            "format-field-id: a non-ASCII id", "id: …\ndata: hello\n\n", [ServerSentEvent(data: "hello", id: "…")],
            lastEventID: "…"),
        FormatCase(
            "format-field-id-3: an id persists", "id: 1\ndata: a\n\ndata: b\n\n",
            [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "1")], lastEventID: "1"),
        FormatCase(
            "format-field-id-3: an id changes and persists", "id: 1\ndata: a\n\nid: 2\ndata: b\n\ndata: c\n\n",
            [
                ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "2"),
                ServerSentEvent(data: "c", id: "2"),
            ], lastEventID: "2"),
        FormatCase(
            "format-field-id-3: an empty id resets", "id: 1\ndata: a\n\nid\ndata: b\n\ndata: c\n\n",
            [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b"), ServerSentEvent(data: "c")]),
        FormatCase(
            "format-field-retry: leading zeros are decimal, not octal", "retry:02000\ndata:x\n\n\n",
            [ServerSentEvent(data: "x")], retries: [2000]),
        FormatCase(
            "format-field-retry-bogus: a value with a non-digit is ignored", "retry:2000\nretry:1000x\ndata:x\n\n\n",
            [ServerSentEvent(data: "x")], retries: [2000]),
        FormatCase(
            "format-null-character: NUL in data is kept", "data:\u{0}\n\n\n", [ServerSentEvent(data: "\u{0}")]),
        FormatCase("format-utf-8: data is always UTF-8", "data:ok…\n\n\n", [ServerSentEvent(data: "ok…")]),
    ]

    @Test("dispatches what the case expects, fed whole, byte by byte and split at every index", arguments: cases)
    func format(_ testCase: FormatCase) {
        for cuts in cuttings(of: testCase.body) {
            var parser = SSEParser()
            let (events, retries) = run(testCase.body, cuts: cuts, parser: &parser)
            #expect(events == testCase.events, "cut at \(cuts.prefix(3))")
            #expect(retries == testCase.retries, "cut at \(cuts.prefix(3))")
            #expect(parser.lastEventID == testCase.lastEventID, "cut at \(cuts.prefix(3))")
        }
    }

    /// The reconnect half of format-data-before-final-empty-line: the server sends the same
    /// body again; `test1` comes back with an empty lastEventId, because `id:test` was never
    /// dispatched, and the reconnection carries no Last-Event-ID.
    @Test("format-data-before-final-empty-line: after a reconnect the undispatched id is gone")
    func reconnectAfterAnUnterminatedEvent() {
        let body = Array("retry:1000\ndata:test1\n\nid:test\ndata:test2\n".utf8)
        for cuts in cuttings(of: body) {
            var parser = SSEParser()
            _ = run(body, cuts: cuts, parser: &parser)
            parser.reset()
            #expect(parser.lastEventID == "")
            let (events, _) = run(body, cuts: cuts, parser: &parser)
            #expect(events == [ServerSentEvent(data: "test1")], "cut at \(cuts.prefix(3))")
            #expect(parser.lastEventID == "")
        }
    }
}
