import MockBackendTesting
import TestSupport
import Testing

@testable import MockBackendHTTP

/// The parser stops after a request that asks to switch protocols (RFC 9110 §7.8) and holds
/// what follows until the server says whether it switched.
@Suite("HTTPRequestParser and upgrades")
struct HTTPRequestParserUpgradeTests {
    private static let upgrade = "GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
    private static let next = "GET /next HTTP/1.1\r\nHost: h\r\n\r\n"

    private static func paths(_ events: [HTTPParserEvent]) -> [String] {
        events.compactMap { if case .request(let request) = $0 { request.path } else { nil } }
    }

    @Test func holdsTheBytesAfterAnUpgradeRequest() {
        var parser = HTTPRequestParser()
        #expect(Self.paths(parser.feed(Array((Self.upgrade + "\u{81}\u{85}frame").utf8))) == ["/ws"])
        #expect(parser.isAwaitingUpgrade)
        #expect(!parser.hasPartialRequest)
        #expect(parser.feed(Array(Self.next.utf8)).isEmpty)
        #expect(parser.takeBytesAfterUpgrade() == Array(("\u{81}\u{85}frame" + Self.next).utf8))
        #expect(!parser.isAwaitingUpgrade)
        #expect(parser.feed(Array(Self.next.utf8)).isEmpty)
        #expect(parser.declineUpgrade().isEmpty)
    }

    @Test func aDeclinedUpgradeParsesWhatFollowedAsHTTP() {
        var parser = HTTPRequestParser()
        let input = Array((Self.upgrade + Self.next + Self.upgrade + Self.next).utf8)
        // However the input is split, declining each upgrade gives the same requests.
        for split in 0...input.count {
            var parser = HTTPRequestParser()
            var events = parser.feed(input[..<split]) + parser.feed(input[split...])
            while parser.isAwaitingUpgrade { events += parser.declineUpgrade() }
            #expect(Self.paths(events) == ["/ws", "/next", "/ws", "/next"], "split at \(split)")
        }
        #expect(parser.declineUpgrade().isEmpty)
        #expect(parser.takeBytesAfterUpgrade().isEmpty)
    }

    @Test(
        "only a request that names Upgrade in Connection, on HTTP/1.1, stops the parser",
        arguments: [
            ("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\n\r\n", false),
            ("GET / HTTP/1.0\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: h2c\r\nConnection: keep-alive, upgrade\r\n\r\n", true),
            ("POST / HTTP/1.1\r\nHost: h\r\nUpgrade: x\r\nConnection: Upgrade\r\nContent-Length: 2\r\n\r\nok", true),
        ])
    func whichRequestsStopIt(_ sample: (String, Bool)) {
        var parser = HTTPRequestParser()
        #expect(Self.paths(parser.feed(Array(sample.0.utf8))) == ["/"])
        #expect(parser.isAwaitingUpgrade == sample.1)
    }
}
