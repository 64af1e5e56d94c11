import ServerSentEvents
import Testing

@Suite("SSEParser limits and reset")
struct SSEParserLimitTests {
    private let limits = SSEParserLimits(maxLineBytes: 1024, maxEventBytes: 4096)

    private func outputs(_ parser: inout SSEParser, _ text: String) -> [SSEParserOutput] {
        parser.feed(Array(text.utf8))
    }

    @Test func aLineWithoutEndIsDroppedOnceItPassesTheLimit() {
        var parser = SSEParser(limits: limits)
        var found: [SSEParserOutput] = []
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 100)
        for _ in 0..<10_000 { found += parser.feed(Array("data: ".utf8) + chunk) }
        #expect(found == [.limitExceeded(.lineTooLong(limit: 1024))])
        // The rest of the line is skipped, and so is the event it belonged to.
        found = outputs(&parser, "\nid: 5\n\ndata: ok\n\n")
        #expect(found == [.event(ServerSentEvent(data: "ok"))])
        #expect(parser.lastEventID == "")
    }

    @Test func anEventPastTheLimitIsDroppedWithItsID() {
        var parser = SSEParser(lastEventID: "1", limits: limits)
        let line = "data: " + String(repeating: "y", count: 1000) + "\n"
        var found = outputs(&parser, "id: 2\n" + String(repeating: line, count: 5))
        #expect(found == [.limitExceeded(.eventTooLarge(limit: 4096))])
        found = outputs(&parser, line + "\n" + "data: next\n\n")
        #expect(found == [.event(ServerSentEvent(data: "next", id: "1"))])
        #expect(parser.lastEventID == "1")
    }

    @Test func eventsUpToTheLimitsPass() {
        var parser = SSEParser(limits: limits)
        let data = String(repeating: "z", count: 1018)
        let found = outputs(&parser, "data: \(data)\ndata: \(data)\n\n")
        #expect(found == [.event(ServerSentEvent(data: data + "\n" + data))])
    }

    @Test func resetRestoresTheLastDispatchedID() {
        var parser = SSEParser()
        _ = outputs(&parser, "id: 1\ndata: a\n\nid: 2\ndata: partial")
        parser.reset()
        #expect(parser.lastEventID == "1")
        // An event without an id on the next connection carries the dispatched id, not "2".
        #expect(outputs(&parser, "data: b\n\n") == [.event(ServerSentEvent(data: "b", id: "1"))])
        // So does a block with no data, which only dispatches the id.
        _ = outputs(&parser, "id: 3\n")
        parser.reset()
        _ = outputs(&parser, ": keep-alive\n\n")
        #expect(parser.lastEventID == "1")
    }
}
