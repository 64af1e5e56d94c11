import Testing

@testable import MockBackendHTTP

/// The upstream response parser without a socket: framing by RFC 9112 §6.3, the same
/// answer however the bytes are split, and every malformed input refused.
@Suite("HTTP response parser")
struct HTTPResponseParserTests {
    /// What a parse gives, the body joined.
    struct Outcome: Equatable {
        var head: HTTPResponseHead?
        var body: [UInt8] = []
        var ended = false
        var failure: HTTPResponseParseError?
    }

    static func parse(_ text: String, split: Int? = nil, head: Bool = false, close: Bool = false) -> Outcome {
        var parser = HTTPResponseParser(requestWasHead: head, maxHeadBytes: 1024)
        let bytes = Array(text.utf8)
        var events: [HTTPResponseParserEvent] = []
        if let split {
            var index = 0
            while index < bytes.count {
                events += parser.feed(bytes[index..<min(bytes.count, index + split)])
                index += split
            }
        } else {
            events = parser.feed(bytes)
        }
        if close { events += parser.finish() }
        var outcome = Outcome()
        for event in events {
            switch event {
            case .head(let head): outcome.head = head
            case .body(let bytes): outcome.body += bytes
            case .end: outcome.ended = true
            case .failure(let error): outcome.failure = error
            }
        }
        return outcome
    }

    static let framings = [
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n2;ext=1\r\nlo\r\n0\r\nX-Trailer: t\r\n\r\n",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\nContent-Length: 5\n\nhello",
    ]

    @Test(arguments: framings)
    func everySplitGivesTheSameResponse(_ text: String) {
        let whole = Self.parse(text)
        #expect(whole.head?.status == 200)
        #expect(whole.body == Array("hello".utf8))
        #expect(whole.ended)
        #expect(whole.failure == nil)
        for split in 1...8 {
            #expect(Self.parse(text, split: split) == whole, "split \(split)")
        }
    }

    @Test func aBodyWithoutLengthLastsUntilTheClose() {
        let open = Self.parse("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: a\n\n")
        #expect(open.body == Array("data: a\n\n".utf8))
        #expect(!open.ended)
        let closed = Self.parse("HTTP/1.1 200 OK\r\n\r\nabc", close: true)
        #expect(closed.body == Array("abc".utf8))
        #expect(closed.ended)
    }

    @Test func responsesWithoutABody() {
        for text in [
            "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", "HTTP/1.1 304 Not Modified\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        ] {
            let outcome = Self.parse(text)
            #expect(outcome.ended && outcome.body.isEmpty, "\(text)")
        }
        let head = Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", head: true)
        #expect(head.ended && head.body.isEmpty)
    }

    @Test func theHeadKeepsFieldsAndKeepAlive() throws {
        let outcome = Self.parse("HTTP/1.0 403 Forbidden\r\nX-A: 1\r\nx-a: 2 \r\nConnection: keep-alive\r\n\r\n")
        let head = try #require(outcome.head)
        #expect(head.version == .http10 && head.status == 403 && head.reason == "Forbidden")
        #expect(head.headers.values(for: "X-A") == ["1", "2"])
        #expect(head.keepsAlive)
        #expect(!HTTPResponseHead(status: 200, headers: ["Connection": "close"]).keepsAlive)
        #expect(!HTTPResponseHead(version: .http10, status: 200, headers: [:]).keepsAlive)
    }

    @Test func aSwitchKeepsTheBytesAfterIt() {
        var parser = HTTPResponseParser()
        let text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\u{81}\u{01}a"
        let events = parser.feed(Array(text.utf8))
        guard case .head(let head) = events.first else {
            Issue.record("no head: \(events)")
            return
        }
        #expect(head.status == 101)
        #expect(parser.takeBytesAfterUpgrade() == [0xC2, 0x81, 0x01, 0x61])
    }

    @Test(arguments: [
        "HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 abc OK\r\n\r\n", "SSH-2.0-OpenSSH\r\n\r\n",
        "HTTP/1.1 200 OK\r\nbad header\r\n\r\n", "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n",
    ])
    func malformedResponsesAreRefused(_ text: String) {
        let outcome = Self.parse(text)
        #expect(outcome.failure != nil, "\(text)")
    }

    @Test func aHugeHeadOrEndlessHeaderIsRefusedAtTheLimit() {
        let huge = "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 2000) + "\r\n\r\n"
        #expect(Self.parse(huge).failure == .headTooLarge(1024))
        // No line end ever comes: refused once the limit is passed, not buffered forever.
        var parser = HTTPResponseParser(maxHeadBytes: 1024)
        _ = parser.feed(Array("HTTP/1.1 200 OK\r\nX-Endless: ".utf8))
        var refused = false
        for _ in 0..<100 where !refused {
            refused = parser.feed([UInt8](repeating: 0x61, count: 64)).contains(.failure(.headTooLarge(1024)))
        }
        #expect(refused)
        #expect(parser.buffer.count < 4096)
    }

    @Test func aConnectionThatEndsEarlyIsATruncation() {
        #expect(Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", close: true).failure == .truncated)
        #expect(
            Self.parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", close: true).failure
                == .truncated)
        #expect(Self.parse("HTTP/1.1 200 O", close: true).failure == .truncated)
    }
}
