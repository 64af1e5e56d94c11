import MockBackendHTTP
import MockBackendTesting
import TestSupport
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
    /// A client that a loaded machine leaves unrun for longer than the timeout between
    /// two of its sends (the start of a full test run can do that) is rightly dropped, and so
    /// is one whose server loop was held back so long that its pings (due every 100 ms) came
    /// half the timeout apart: the pongs it read late count late. The attempt is then made
    /// again. A drop while both kept time fails the test.
    @Test func pongsKeepAConnectionOpen() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.webSocket.pingInterval = .milliseconds(100)
        let idle = TestTiming.scaled(.milliseconds(3000))
        configuration.webSocket.idleTimeout = idle
        try await withHTTPServer(configuration: configuration, responder: WebSocketTestRoutes.responder()) { server in
            for attempt in 1...3 {
                let client = RawWebSocketClient(try RawHTTPClient(server))
                let start = ContinuousClock.now
                var lastSent = start
                var lastPing = start
                var starved = false
                do {
                    #expect(try await client.upgrade(path: "/echo").status == 101)
                    while ContinuousClock.now - start < idle * 2 {
                        let ping = try await client.readFrame()
                        starved =
                            starved || ContinuousClock.now - lastSent >= idle
                            || ContinuousClock.now - lastPing >= idle / 2
                        lastPing = .now
                        #expect(ping.opcode == 9)
                        try client.send(RawWebSocketFrame(opcode: 10))
                        lastSent = .now
                    }
                    try client.send(.text("still here"))
                    try await client.expectText("still here")
                    try await client.closeCleanly()
                    return
                } catch let error as RawClientError
                    where [.closedByPeer, .resetByPeer].contains(error) && attempt < 3
                    && (starved || ContinuousClock.now - lastSent >= idle)
                {
                    continue
                }
            }
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
