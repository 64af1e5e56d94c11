import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// The life of an upgraded connection: the switch, closing from either side, aborting,
/// timeouts, the server stopping, and nothing left behind.
@Suite("WebSocket connection lifecycle")
struct WebSocketLifecycleTests {
    /// Frames sent in the same write as the upgrade request were read with it; they are
    /// the first frames, not lost and not taken for HTTP.
    @Test func framesSentWithTheUpgradeRequestAreNotLost() async throws {
        try await withHTTPServer(responder: WebSocketTestRoutes.responder()) { server in
            let client = RawWebSocketClient(try RawHTTPClient(server))
            try client.connection.send(
                Array(RawWebSocketClient.upgradeRequest(path: "/echo").utf8) + RawWebSocketFrame.text("early").encoded()
                    + RawWebSocketFrame(opcode: 9, payload: [7]).encoded())
            #expect(try await client.connection.readResponse().status == 101)
            try await client.expectText("early")
            try await client.expectMessage(opcode: 10, [7])
            try await client.closeCleanly()
        }
    }

    @Test func clientMessagesReachTheApplication() async throws {
        let registry = WebSocketRegistry()
        try await withHTTPServer(responder: WebSocketTestRoutes.responder(registry)) { server in
            let client = try await RawWebSocketClient.connect(server, path: "/record")
            try client.send(
                .text("one"), RawWebSocketFrame.text("t", fin: false),
                RawWebSocketFrame(opcode: 0, payload: [0x77, 0x6F]))
            #expect(await eventually { registry.received.current == ["one", "two"] })
            try await client.closeCleanly()
        }
    }

    /// The server closes first (§7.1.1): its messages, its close frame, the client's
    /// answer, then FIN from the server.
    @Test func theServerClosesWithTheClosingHandshake() async throws {
        let registry = WebSocketRegistry()
        var configuration = HTTPServerConfiguration()
        // However late a loaded machine runs the client, the server waits for its answer.
        configuration.webSocket.closeTimeout = .seconds(60)
        try await withHTTPServer(configuration: configuration, responder: WebSocketTestRoutes.responder(registry)) {
            server in
            let client = try await RawWebSocketClient.connect(server, path: "/history?count=2&close=1")
            try await client.expectText("m1")
            try await client.expectText("m2")
            let close = try await client.readFrame()
            #expect(close.closeCode == 1000)
            #expect(close.payload.dropFirst(2).elementsEqual("done".utf8))
            // Nothing more is sent, and the TCP connection stays open for the answer.
            try await client.expectSilence()
            registry.last?.send(text: "too late")
            try client.send(.close(code: 1000))
            #expect(await client.readUntilClosed() == ([], .fin))
        }
        #expect(
            registry.closeEvents.current == [
                WebSocketCloseEvent(code: .normalClosure, sentCode: .normalClosure, transport: .finished)
            ])
    }

    /// A client that never answers the close frame is closed after `closeTimeout` (1006).
    @Test func aClientThatNeverAnswersTheCloseIsClosedAfterTheTimeout() async throws {
        let registry = WebSocketRegistry()
        var configuration = HTTPServerConfiguration()
        configuration.webSocket.closeTimeout = .milliseconds(300)
        try await withHTTPServer(configuration: configuration, responder: WebSocketTestRoutes.responder(registry)) {
            server in
            let start = ContinuousClock.now
            let client = try await RawWebSocketClient.connect(server, path: "/history?count=0&close=1")
            #expect(try await client.readFrame().closeCode == 1000)
            #expect(await client.readUntilClosed().end == .fin)
            #expect(ContinuousClock.now - start >= .milliseconds(250))
        }
        #expect(
            registry.closeEvents.current == [
                WebSocketCloseEvent(code: .abnormalClosure, sentCode: .normalClosure, transport: .connectionClosed)
            ])
    }

    /// A client that leaves without a close frame: 1006, `clientClosed`.
    @Test func aClientLeavingWithoutACloseFrameIsAnAbnormalClosure() async throws {
        let registry = WebSocketRegistry()
        try await withHTTPServer(responder: WebSocketTestRoutes.responder(registry)) { server in
            let client = try await RawWebSocketClient.connect(server)
            client.connection.shutdownWrite()
            #expect(await eventually { registry.closeEvents.current.count == 1 })
            #expect(await client.readUntilClosed() == ([], .fin))
        }
        #expect(
            registry.closeEvents.current == [
                WebSocketCloseEvent(code: .abnormalClosure, sentCode: nil, transport: .clientClosed)
            ])
    }

    @Test("abort drops the connection without a close frame: FIN, or RST", arguments: [false, true])
    func abort(_ reset: Bool) async throws {
        let registry = WebSocketRegistry()
        try await withHTTPServer(responder: WebSocketTestRoutes.responder(registry)) { server in
            let client = try await RawWebSocketClient.connect(server, path: "/history?count=1")
            try await client.expectText("m1")
            registry.last?.abort(reset: reset)
            #expect(await client.readUntilClosed() == ([], reset ? .reset : .fin))
            #expect(await eventually { registry.last?.isClosed == true })
        }
        #expect(registry.closeEvents.current.map(\.transport) == [.aborted])
        #expect(registry.closeEvents.current.map(\.code) == [.abnormalClosure])
    }

    /// Stopping the server closes each WebSocket with 1001 and waits for the answer.
    @Test func stoppingTheServerSendsGoingAway() async throws {
        let registry = WebSocketRegistry()
        // A close answer awaited longer than the default 5 s: at the start of a whole run on
        // two cores this test's task can wait that long before it reads the close frame.
        var configuration = HTTPServerConfiguration()
        configuration.webSocket.closeTimeout = .seconds(25)
        let server = HTTPServer(
            configuration: configuration, responder: WebSocketTestRoutes.responder(registry),
            logger: .init(label: "test"))
        try server.start()
        let answering = try await RawWebSocketClient.connect(server)
        let silent = try await RawWebSocketClient.connect(server)
        #expect(await eventually { registry.writers.current.count == 2 })
        let stopping = Task { await server.stop(gracePeriod: .seconds(30)) }
        let close = try await answering.readFrame()
        #expect(close.closeCode == 1001)
        try answering.send(.close(code: 1001))
        #expect(await answering.readUntilClosed().end == .fin)
        // A client that leaves instead of answering ends the wait too.
        #expect(try await silent.readFrame().closeCode == 1001)
        silent.close()
        await stopping.value
        let events = registry.closeEvents.current
        #expect(events.count == 2)
        #expect(events.allSatisfy { $0.sentCode == .goingAway })
        #expect(events.contains(WebSocketCloseEvent(code: .goingAway, sentCode: .goingAway, transport: .finished)))
        #expect(
            events.contains(WebSocketCloseEvent(code: .abnormalClosure, sentCode: .goingAway, transport: .clientClosed))
        )
        #expect(server.statistics.openConnections == 0)
    }

    /// Opening and closing WebSockets, cleanly and not, leaves no descriptor, timer (the
    /// ping timer included) or connection object behind.
    @Test func nothingIsLeftBehind() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.webSocket.pingInterval = .milliseconds(50)
        try await withHTTPServer(configuration: configuration, responder: WebSocketTestRoutes.responder()) { server in
            for index in 0..<6 {
                let client = try await RawWebSocketClient.connect(server)
                switch index % 3 {
                case 0: try await client.closeCleanly()
                case 1: client.close()
                default:
                    try client.send(RawWebSocketFrame(opcode: 3))
                    try await client.expectFailed(with: 1002)
                }
            }
            #expect(await eventually { server.statistics.openConnections == 0 })
            #expect(await eventually { server.statistics.activeTimers == 0 })
            #expect(await eventually { server.statistics.openDescriptors == 0 })
            #expect(await eventually { server.statistics.liveConnectionObjects == 0 })
            // Served: the four that ended in a close frame; the two cut short by their
            // client are not, as a stream cut short is not.
            #expect(server.statistics.requestsServed == 4)
        }
    }
}
