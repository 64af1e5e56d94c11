import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

@Suite("WebSocket opening handshake")
struct WebSocketHandshakeTests {
    private static let key = RawWebSocketClient.sampleKey

    private static func request(
        method: String = "GET", version: HTTPVersion = .http11, _ fields: [(String, String)]
    ) -> HTTPRequest {
        HTTPRequest(method: method, target: "/ws", version: version, headers: HTTPHeaders([("Host", "h")] + fields))
    }

    private static let valid: [(String, String)] = [
        ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", key),
        ("Sec-WebSocket-Version", "13"),
    ]

    private static func replacing(_ name: String, with value: String?) -> [(String, String)] {
        var fields = valid.filter { $0.0 != name }
        if let value { fields.append((name, value)) }
        return fields
    }

    @Test func acceptsAValidHandshakeAndComputesTheAcceptValue() throws {
        #expect(try WebSocketHandshake.validate(Self.request(Self.valid)).get() == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func tokensAreCaseInsensitiveAndMayBeAmongOthers() {
        let fields =
            Self.replacing("Upgrade", with: "WebSocket").filter { $0.0 != "Connection" } + [
                ("Connection", "keep-alive, UPGRADE")
            ]
        #expect((try? WebSocketHandshake.validate(Self.request(fields)).get()) != nil)
        let twoFields =
            Self.valid.filter { $0.0 != "Connection" } + [("Connection", "keep-alive"), ("Connection", "upgrade")]
        #expect((try? WebSocketHandshake.validate(Self.request(twoFields)).get()) != nil)
    }

    static let refusals: [(name: String, request: HTTPRequest, status: Int, code: String)] = [
        ("plain GET", request([]), 426, "WEBSOCKET_UPGRADE_REQUIRED"),
        ("another protocol", request(replacing("Upgrade", with: "h2c")), 426, "WEBSOCKET_UPGRADE_REQUIRED"),
        ("POST", request(method: "POST", valid), 400, "WEBSOCKET_METHOD_NOT_GET"),
        ("HTTP/1.0", request(version: .http10, valid), 400, "WEBSOCKET_HTTP_VERSION"),
        ("no Connection", request(replacing("Connection", with: nil)), 400, "WEBSOCKET_CONNECTION_NOT_UPGRADE"),
        (
            "Connection: keep-alive", request(replacing("Connection", with: "keep-alive")), 400,
            "WEBSOCKET_CONNECTION_NOT_UPGRADE"
        ),
        ("no version", request(replacing("Sec-WebSocket-Version", with: nil)), 426, "WEBSOCKET_VERSION_UNSUPPORTED"),
        ("version 8", request(replacing("Sec-WebSocket-Version", with: "8")), 426, "WEBSOCKET_VERSION_UNSUPPORTED"),
        ("no key", request(replacing("Sec-WebSocket-Key", with: nil)), 400, "WEBSOCKET_KEY_INVALID"),
        (
            "key not base64", request(replacing("Sec-WebSocket-Key", with: "not base64 at all!!!!!==")), 400,
            "WEBSOCKET_KEY_INVALID"
        ),
        (
            "key of 15 bytes", request(replacing("Sec-WebSocket-Key", with: "AAAAAAAAAAAAAAAAAAAA")), 400,
            "WEBSOCKET_KEY_INVALID"
        ),
        (
            "key of 17 bytes", request(replacing("Sec-WebSocket-Key", with: "AAAAAAAAAAAAAAAAAAAAAAA=")), 400,
            "WEBSOCKET_KEY_INVALID"
        ),
        ("two keys", request(valid + [("Sec-WebSocket-Key", key)]), 400, "WEBSOCKET_KEY_INVALID"),
    ]

    @Test("refuses a bad handshake with a stable code", arguments: refusals)
    func refuses(_ refusal: (name: String, request: HTTPRequest, status: Int, code: String)) throws {
        let result = WebSocketHandshake.validate(refusal.request)
        guard case .failure(let error) = result else {
            Issue.record("\(refusal.name) was accepted")
            return
        }
        #expect(error.problem.status == refusal.status, "\(refusal.name)")
        #expect(error.problem.code == refusal.code, "\(refusal.name)")
        let response = error.response
        #expect(response.headers["Content-Type"] == MediaType.problemJSON)
        if refusal.status == 426 { #expect(response.headers["Upgrade"] == "websocket") }
        if refusal.code == "WEBSOCKET_VERSION_UNSUPPORTED" {
            #expect(response.headers["Sec-WebSocket-Version"] == "13")
        }
    }

    // MARK: - Over a socket

    @Test func the101HeadCarriesTheUpgradeFieldsAndTheRoutesOwn() async throws {
        try await withHTTPServer(responder: WebSocketTestRoutes.responder()) { server in
            let client = RawWebSocketClient(try RawHTTPClient(server))
            let response = try await client.upgrade(path: "/history?count=0")
            #expect(response.status == 101)
            #expect(response.rawHead.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
            #expect(response.headers["Upgrade"] == "websocket")
            #expect(response.headers["Connection"] == "Upgrade")
            #expect(response.headers["Sec-WebSocket-Accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
            #expect(response.headers["X-Test"] == "history")
            #expect(response.headers["Content-Length"] == nil)
            #expect(response.headers["Transfer-Encoding"] == nil)
        }
    }

    static let wireRefusals: [(name: String, request: String, status: Int, code: String)] = [
        ("plain GET", "GET /echo HTTP/1.1\r\nHost: h\r\n\r\n", 426, "WEBSOCKET_UPGRADE_REQUIRED"),
        (
            "wrong version",
            "GET /echo HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 8\r\n\r\n",
            426, "WEBSOCKET_VERSION_UNSUPPORTED"
        ),
        (
            "bad key",
            "GET /echo HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: abc\r\nSec-WebSocket-Version: 13\r\n\r\n",
            400, "WEBSOCKET_KEY_INVALID"
        ),
        (
            "no Connection: upgrade",
            "GET /echo HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n",
            400, "WEBSOCKET_CONNECTION_NOT_UPGRADE"
        ),
    ]

    /// A refused upgrade is an ordinary answer: the connection stays HTTP, and a request
    /// sent right behind the refused one (held while the server decided) is answered next.
    @Test("a refused upgrade is answered and the connection stays HTTP", arguments: wireRefusals)
    func refusedOverTheWire(_ refusal: (name: String, request: String, status: Int, code: String)) async throws {
        try await withHTTPServer(responder: WebSocketTestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send(refusal.request + "GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            let refused = try await client.readResponse()
            #expect(refused.status == refusal.status, "\(refusal.name)")
            #expect(refused.text.contains(#""code":"\#(refusal.code)""#), "\(refusal.name)")
            if refusal.status == 426 { #expect(refused.headers["Upgrade"] == "websocket") }
            #expect(try await client.readResponse().text == "hello")
        }
    }

    @Test func anUpgradeToAnotherProtocolOnAnHTTPRouteIsAnsweredAsHTTP() async throws {
        try await withHTTPServer(responder: WebSocketTestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send(
                "GET /hello HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\nGET /hello HTTP/1.1\r\nHost: h\r\n\r\n"
            )
            #expect(try await client.readResponse().text == "hello")
            #expect(try await client.readResponse().text == "hello")
        }
    }

    /// A request behind a declined upgrade that expects 100 Continue does not get it ahead
    /// of the upgrade request's own answer.
    @Test func aRequestBehindADeclinedUpgradeIsAnsweredInOrder() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send(
                "GET /hello HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
                    + "POST /echo HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
            let first = try await client.readResponse()
            #expect(first.status == 200)
            #expect(first.text == "hello")
            try client.send("ok")
            let echo = try await client.readResponse()
            #expect(echo.status == 200)
            #expect(echo.text == "ok")
        }
    }

    /// Requests pipelined before an upgrade are answered first; the upgrade then switches.
    @Test func requestsBeforeTheUpgradeAreAnsweredFirst() async throws {
        try await withHTTPServer(responder: WebSocketTestRoutes.responder()) { server in
            let client = RawWebSocketClient(try RawHTTPClient(server))
            try client.connection.send(
                "GET /hello HTTP/1.1\r\nHost: h\r\n\r\n" + RawWebSocketClient.upgradeRequest(path: "/echo"))
            #expect(try await client.connection.readResponse().text == "hello")
            #expect(try await client.connection.readResponse().status == 101)
            try client.send(.text("after"))
            #expect(try await client.readFrame().text == "after")
        }
    }
}
