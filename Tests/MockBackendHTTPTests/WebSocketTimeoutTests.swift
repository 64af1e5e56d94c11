import MockBackendHTTP
import MockBackendTesting
import Testing

/// Pings and timeouts of upgraded connections (`WebSocketConfiguration`), and the header
/// timeout before the upgrade.
@Suite("WebSocket pings and timeouts")
struct WebSocketTimeoutTests {
    @Test func theServerPingsEveryInterval() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.webSocket.pingInterval = .milliseconds(100)
        try await withHTTPServer(configuration: configuration, responder: WebSocketTestRoutes.responder()) { server in
            // Before the upgrade: the pings count from it.
            let start = ContinuousClock.now
            let client = try await RawWebSocketClient.connect(server)
            for _ in 0..<3 {
                let ping = try await client.readFrame()
                #expect(ping == RawWebSocketFrame(opcode: 9, masked: false))
                try client.send(RawWebSocketFrame(opcode: 10))
            }
            #expect(ContinuousClock.now - start >= .milliseconds(250))
            try await client.closeCleanly()
        }
    }

    @Test func noPingsWhenTheIntervalIsZero() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.webSocket.pingInterval = .zero
        try await withEchoWebSocket(configuration: configuration) { client in
            try await client.expectSilence(for: .milliseconds(300))
            try await client.closeCleanly()
        }
    }

    /// A connection that receives nothing for `idleTimeout` is dropped without a close frame.
    @Test func aSilentClientIsDroppedAfterTheIdleTimeout() async throws {
        let registry = WebSocketRegistry()
        var configuration = HTTPServerConfiguration()
        configuration.webSocket.pingInterval = .zero
        configuration.webSocket.idleTimeout = .milliseconds(300)
        try await withHTTPServer(configuration: configuration, responder: WebSocketTestRoutes.responder(registry)) {
            server in
            let start = ContinuousClock.now
            let client = try await RawWebSocketClient.connect(server)
            #expect(await client.readUntilClosed() == ([], .fin))
            #expect(ContinuousClock.now - start >= .milliseconds(250))
        }
        #expect(
            registry.closeEvents.current == [
                WebSocketCloseEvent(code: .abnormalClosure, sentCode: nil, transport: .connectionClosed)
            ])
    }

    /// Any byte is a sign of life: pongs alone keep a connection open past the idle timeout.
    @Test func pongsKeepAConnectionOpen() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.webSocket.pingInterval = .milliseconds(100)
        // Room for a client task that a loaded machine runs late to answer in time.
        configuration.webSocket.idleTimeout = TestTiming.scaled(.seconds(2))
        try await withEchoWebSocket(configuration: configuration) { client in
            let start = ContinuousClock.now
            while ContinuousClock.now - start < TestTiming.scaled(.seconds(3)) {
                let ping = try await client.readFrame()
                #expect(ping.opcode == 9)
                try client.send(RawWebSocketFrame(opcode: 10))
            }
            try client.send(.text("still here"))
            try await client.expectText("still here")
            try await client.closeCleanly()
        }
    }

    @Test func theIdleTimeoutOfHTTPNoLongerApplies() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.idleTimeout = .milliseconds(100)
        configuration.webSocket.pingInterval = .zero
        try await withEchoWebSocket(configuration: configuration) { client in
            try await client.expectSilence(for: .milliseconds(400))
            try client.send(.text("alive"))
            try await client.expectText("alive")
            try await client.closeCleanly()
        }
    }

    /// The header timeout still covers the upgrade request: a half-sent one is closed.
    @Test func aHalfSentUpgradeRequestIsClosedAfterTheHeaderTimeout() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.headerTimeout = .milliseconds(300)
        try await withHTTPServer(configuration: configuration, responder: WebSocketTestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            let request = RawWebSocketClient.upgradeRequest(path: "/echo")
            try client.send(String(request.dropLast(2)))
            #expect(await client.waitForClose() == .fin)
            #expect(client.buffer.isEmpty)
        }
    }
}
