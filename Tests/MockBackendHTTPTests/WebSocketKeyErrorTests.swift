import MockBackendHTTP
import Testing

/// The refusals of a bad `Sec-WebSocket-Key` read as one sentence each, the field named
/// once (RFC 6455 §4.2.1 item 5).
@Suite("WebSocket key refusals")
struct WebSocketKeyErrorTests {
    private static func detail(keys: [String]) throws -> String {
        let fields =
            [("Host", "h"), ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13")]
            + keys.map { ("Sec-WebSocket-Key", $0) }
        let request = HTTPRequest(method: "GET", target: "/ws", headers: HTTPHeaders(fields))
        guard case .failure(let error) = WebSocketHandshake.validate(request) else {
            Issue.record("the handshake was accepted")
            return ""
        }
        #expect(error.problem.code == "WEBSOCKET_KEY_INVALID")
        return error.problem.detail
    }

    @Test(
        arguments: [
            ([#"abc"#], #"Sec-WebSocket-Key "abc" is not the base64 of 16 bytes (RFC 6455 §4.2.1 item 5)."#),
            ([], "Sec-WebSocket-Key is missing (RFC 6455 §4.2.1 item 5)."),
            (
                ["dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25jZQ=="],
                "Sec-WebSocket-Key is sent 2 times (RFC 6455 §4.2.1 item 5)."
            ),
        ])
    func eachRefusalIsOneSentence(keys: [String], expected: String) throws {
        let detail = try Self.detail(keys: keys)
        #expect(detail == expected)
        #expect(!detail.contains(" is \""))
    }
}
