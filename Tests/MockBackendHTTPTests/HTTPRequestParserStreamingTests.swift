import Testing

@testable import MockBackendHTTP

/// Bodies the responder wants as they arrive (`HTTPRequestParser.streamsBody`): a head,
/// the body in parts, an end — the same bytes however the input is split.
@Suite("HTTPRequestParser: streamed bodies")
struct HTTPRequestParserStreamingTests {
    /// What a feed produced, bodies joined: the request heads in order, each streamed
    /// body's bytes, and whether it ended.
    private struct Outcome: Equatable {
        var heads: [String] = []
        var whole: [String] = []
        var streamed: [String] = []
        var ended = 0
        var failed = false
    }

    private static func run(
        _ input: String, cut: Int? = nil, limits: HTTPParserLimits = HTTPParserLimits(),
        streams: @escaping @Sendable (HTTPRequest) -> Bool = { $0.path.hasPrefix("/up") }
    ) -> Outcome {
        var parser = HTTPRequestParser(limits: limits)
        parser.streamsBody = streams
        let bytes = Array(input.utf8)
        let pieces = cut.map { [bytes[..<$0], bytes[$0...]] } ?? [bytes[...]]
        var outcome = Outcome()
        for piece in pieces {
            for event in parser.feed(piece) {
                switch event {
                case .request(let request):
                    outcome.heads.append(request.path)
                    outcome.whole.append(String(decoding: request.body, as: UTF8.self))
                case .streamingRequest(let request, _):
                    #expect(request.body.isEmpty)
                    #expect(request.bodyStream != nil)
                    outcome.heads.append(request.path)
                    outcome.streamed.append("")
                case .bodyPart(let part):
                    outcome.streamed[outcome.streamed.count - 1] += String(decoding: part, as: UTF8.self)
                case .bodyEnd:
                    outcome.ended += 1
                case .failure:
                    outcome.failed = true
                case .continueExpected:
                    break
                }
            }
        }
        return outcome
    }

    @Test(arguments: Array(45..<65))
    func aFixedLengthBodyStillArrivingStreamsAndThePipelinedRequestFollows(cut: Int) {
        let input =
            "POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789"
            + "GET /next HTTP/1.1\r\nHost: h\r\n\r\n"
        let outcome = Self.run(input, cut: cut)
        #expect(outcome.heads == ["/up", "/next"])
        // Only a body not already here whole streams: the head is 50 bytes, the body 10.
        if (50..<60).contains(cut) {
            #expect(outcome.streamed == ["0123456789"])
            #expect(outcome.ended == 1)
        } else {
            #expect(outcome.whole == ["0123456789", ""])
            #expect(outcome.streamed.isEmpty)
        }
        #expect(!outcome.failed)
    }

    @Test(arguments: [nil, 50, 60, 70, 80])
    func aChunkedBodyStreamsItsDataAlone(cut: Int?) {
        let input =
            "PUT /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4;ext=1\r\nabcd\r\n2\r\nef\r\n0\r\nTrailer: x\r\n\r\nGET /next HTTP/1.1\r\nHost: h\r\n\r\n"
        let outcome = Self.run(input, cut: cut)
        #expect(outcome.heads == ["/up", "/next"])
        #expect(outcome.streamed == ["abcdef"])
        #expect(outcome.ended == 1)
        #expect(!outcome.failed)
    }

    @Test func theResponderDecidesFromTheHead() {
        let input = "POST /own HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
        let outcome = Self.run(input, cut: 45)
        #expect(outcome.whole == ["abc"])
        #expect(outcome.streamed.isEmpty)
    }

    @Test func aStreamedBodyHasNoSizeLimitAndAHeldOneKeepsIt() {
        var limits = HTTPParserLimits()
        limits.maxBodyBytes = 4
        let body = "0123456789"
        let streamed = Self.run(
            "POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n\(body)", limits: limits)
        #expect(streamed.streamed == [body])
        #expect(!streamed.failed)
        let chunked = Self.run(
            "POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\na\r\n\(body)\r\n0\r\n\r\n",
            limits: limits)
        #expect(chunked.streamed == [body])
        let held = Self.run(
            "POST /own HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n\(body)", limits: limits)
        #expect(held.failed)
        #expect(held.heads.isEmpty)
    }

    @Test func aBrokenChunkAfterAStreamedHeadFailsTheConnection() {
        let outcome = Self.run("POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXX")
        #expect(outcome.heads == ["/up"])
        #expect(outcome.failed)
        #expect(outcome.ended == 0)
    }

    /// A request that asks to switch protocols stops the parser after its body, streamed
    /// or not: what follows may be the next protocol's.
    @Test func anUpgradeRequestStopsTheParserAfterItsStreamedBody() {
        var parser = HTTPRequestParser()
        parser.streamsBody = { _ in true }
        let head = "POST /up HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: chat\r\nContent-Length: 3\r\n\r\n"
        _ = parser.feed(Array(head.utf8))
        let events = parser.feed(Array("abcNOT HTTP".utf8))
        #expect(events == [.bodyPart(Array("abc".utf8)), .bodyEnd])
        #expect(parser.isAwaitingUpgrade)
        #expect(parser.takeBytesAfterUpgrade() == Array("NOT HTTP".utf8))
    }

    @Test func expectContinueRidesOnTheStreamedHead() {
        var parser = HTTPRequestParser()
        parser.streamsBody = { _ in true }
        let events = parser.feed(
            Array("POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n".utf8))
        guard case .streamingRequest(_, let expectsContinue) = events.first else {
            Issue.record("no streamed head: \(events)")
            return
        }
        #expect(expectsContinue)
        #expect(events.count == 1)
    }
}
