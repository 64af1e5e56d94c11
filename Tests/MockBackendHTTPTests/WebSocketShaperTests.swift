import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// Every write of an upgraded connection goes through the response's shaper, one message
/// per `.message` write; the shaper's segments act on the connection as on a stream.
@Suite("WebSocket writes through a ResponseShaper")
struct WebSocketShaperTests {
    @Test func theShaperSeesTheHeadEachMessageAndEachControlFrame() async throws {
        let registry = WebSocketRegistry()
        try await withHTTPServer(responder: WebSocketTestRoutes.responder(registry)) { server in
            let client = try await RawWebSocketClient.connect(server, path: "/history?count=2&shaped=1")
            try await client.expectText("m1")
            try await client.expectText("m2")
            registry.broadcast.withLock { $0.send(PreparedWebSocketMessage(text: "live")) }
            try await client.expectText("live")
            try client.send(RawWebSocketFrame(opcode: 9, payload: [1]))
            try await client.expectMessage(opcode: 10, [1])
            try await client.closeCleanly()
        }
        #expect(registry.shapedKinds.current == [.head, .message, .message, .message, .control, .control])
    }

    /// `.pause` holds the messages back without holding the loop.
    @Test func pausesDelayEachMessage() async throws {
        try await withHTTPServer(responder: WebSocketTestRoutes.responder()) { server in
            let start = ContinuousClock.now
            let client = try await RawWebSocketClient.connect(server, path: "/history?count=2&pause=150")
            try await client.expectText("m1")
            try await client.expectText("m2")
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            // The other connections of the loop are served meanwhile.
            #expect(try await RawHTTPClient(server).get("/hello").text == "hello")
            try await client.closeCleanly()
        }
    }

    /// `.paced` sends a frame in pieces; the client reads it whole.
    @Test func pacedFramesArriveWhole() async throws {
        try await withHTTPServer(responder: WebSocketTestRoutes.responder()) { server in
            let client = try await RawWebSocketClient.connect(server, path: "/history?count=2&paced=1")
            try await client.expectText("m1")
            try await client.expectText("m2")
            try await client.closeCleanly()
        }
    }

    /// `.close` after the n-th message: the client gets n messages and then the TCP
    /// connection ends without a close frame (FIN, or RST); the application hears 1006, `cut`.
    @Test("a close segment cuts the connection after a counted message", arguments: ["close", "reset"])
    func cut(_ ending: String) async throws {
        let registry = WebSocketRegistry()
        try await withHTTPServer(responder: WebSocketTestRoutes.responder(registry)) { server in
            let client = try await RawWebSocketClient.connect(
                server, path: "/history?count=4&cutAfter=2&ending=\(ending)")
            let rest = await client.readUntilClosed()
            #expect(rest.frames.map(\.text) == ["m1", "m2"])
            #expect(rest.end == (ending == "reset" ? .reset : .fin))
        }
        #expect(
            registry.closeEvents.current == [
                WebSocketCloseEvent(code: .abnormalClosure, sentCode: nil, transport: .cut)
            ])
    }

    /// `.blackhole`: nothing more is sent, not even pings, pongs or a close frame, nothing is
    /// read, and the connection stays open until the server drops it.
    @Test func aBlackholeKeepsTheConnectionOpenAndSilent() async throws {
        let registry = WebSocketRegistry()
        var configuration = HTTPServerConfiguration()
        configuration.webSocket.pingInterval = .milliseconds(50)
        configuration.webSocket.idleTimeout = .milliseconds(200)
        try await withHTTPServer(configuration: configuration, responder: WebSocketTestRoutes.responder(registry)) {
            server in
            let client = try await RawWebSocketClient.connect(
                server, path: "/history?count=3&cutAfter=1&ending=blackhole")
            try await client.expectText("m1")
            try client.send(RawWebSocketFrame(opcode: 9, payload: [1]))
            // Past the idle timeout and several ping intervals: still open, still silent.
            #expect(await client.readUntilClosed(timeout: .milliseconds(500)) == ([], .stillOpen))
            #expect(registry.last?.isClosed == false)
            // Not even a close frame goes out: a graceful close leaves it as it is.
            registry.last?.close()
            #expect(await client.readUntilClosed(timeout: .milliseconds(300)) == ([], .stillOpen))
            // Dropping it closes the socket; the ping it never read makes that an RST.
            registry.last?.abort()
            let end = await client.readUntilClosed()
            #expect(end.frames.isEmpty)
            #expect(end.end != .stillOpen)
        }
        #expect(registry.closeEvents.current.map(\.transport) == [.aborted])
        #expect(registry.closeEvents.current.map(\.code) == [.abnormalClosure])
    }
}
