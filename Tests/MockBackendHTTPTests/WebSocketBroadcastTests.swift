import Dispatch
import MockBackendHTTP
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// History first, then live messages through a `SinkGroup`, as a progress
/// feed sends them; slow readers and drained queues.
@Suite("WebSocket broadcast")
struct WebSocketBroadcastTests {
    @Test func historyThenLiveMessagesToEveryMember() async throws {
        let registry = WebSocketRegistry()
        try await withHTTPServer(responder: WebSocketTestRoutes.responder(registry)) { server in
            var clients: [RawWebSocketClient] = []
            for _ in 0..<3 { clients.append(try await RawWebSocketClient.connect(server, path: "/history?count=2")) }
            #expect(await eventually { registry.broadcast.current.count == 3 })
            for index in 1...3 {
                registry.broadcast.withLock { $0.send(PreparedWebSocketMessage(text: "live \(index)")) }
            }
            for client in clients {
                for expected in ["m1", "m2", "live 1", "live 2", "live 3"] { try await client.expectText(expected) }
            }
            // A member that leaves is removed by its close handler; the others go on.
            try await clients[0].closeCleanly()
            #expect(await eventually { registry.broadcast.current.count == 2 })
            // The end: a last message, then every member closed with 1000, in that order.
            registry.broadcast.withLock { group in
                group.send(PreparedWebSocketMessage(binary: [1, 2, 3]))
                group.finish(.complete)
            }
            for client in clients.dropFirst() {
                try await client.expectMessage(opcode: 2, [1, 2, 3])
                let close = try await client.readFrame()
                #expect(close.closeCode == 1000)
                try client.send(.close(code: 1000))
                #expect(await client.readUntilClosed() == ([], .fin))
            }
            #expect(await eventually { registry.broadcast.current.count == 0 })
            #expect(registry.closeEvents.current.allSatisfy { $0.wasClean && $0.transport == .finished })
        }
    }

    /// A batch goes out as its messages, in order, between the sends around it.
    @Test func aBatchArrivesAsItsMessagesInOrder() async throws {
        let registry = WebSocketRegistry()
        try await withHTTPServer(responder: WebSocketTestRoutes.responder(registry)) { server in
            let client = try await RawWebSocketClient.connect(server, path: "/history?count=0")
            #expect(await eventually { registry.broadcast.current.count == 1 })
            registry.broadcast.withLock { group in
                group.send(PreparedWebSocketMessage(text: "before"))
                group.send(
                    PreparedWebSocketMessages([
                        PreparedWebSocketMessage(text: "one"), PreparedWebSocketMessage(binary: [2]),
                        PreparedWebSocketMessage(text: String(repeating: "3", count: 300)),
                    ]))
                group.send(PreparedWebSocketMessages([]))
                group.send(PreparedWebSocketMessage(text: "after"))
            }
            try await client.expectText("before")
            try await client.expectText("one")
            try await client.expectMessage(opcode: 2, [2])
            try await client.expectText(String(repeating: "3", count: 300))
            try await client.expectText("after")
            try await client.closeCleanly()
        }
    }

    @Test func whenDrainedRunsOnceTheMembersHaveTakenEverything() async throws {
        let registry = WebSocketRegistry()
        try await withHTTPServer(responder: WebSocketTestRoutes.responder(registry)) { server in
            let client = try await RawWebSocketClient.connect(server, path: "/history?count=1")
            #expect(await eventually { registry.broadcast.current.count == 1 })
            let drained = LockedValue<[Set<UInt64>]>([])
            registry.broadcast.withLock { group in
                group.send(PreparedWebSocketMessage(text: "live"))
                group.whenDrained(toAtMost: 0, patience: .seconds(5), on: DispatchQueue.global()) { laggards in
                    drained.withLock { $0.append(laggards) }
                }
            }
            #expect(await eventually { drained.current == [[]] })
            let writerDrained = LockedValue(false)
            registry.last?.whenDrained(toAtMost: 0) { writerDrained.withLock { $0 = true } }
            #expect(await eventually { writerDrained.current })
            try await client.expectText("m1")
            try await client.expectText("live")
            try await client.closeCleanly()
        }
    }

    /// The slow-reader bound of streams applies: a client that reads nothing while
    /// messages pile up is disconnected (1006, `slowReader`); the others are not.
    @Test func aReaderThatFallsTooFarBehindIsDisconnected() async throws {
        let registry = WebSocketRegistry()
        var configuration = HTTPServerConfiguration()
        configuration.maxUnsentStreamBytes = 64 * 1024
        try await withHTTPServer(configuration: configuration, responder: WebSocketTestRoutes.responder(registry)) {
            server in
            let slow = RawWebSocketClient(try RawHTTPClient(port: server.port ?? 0, receiveBufferSize: 4096))
            #expect(try await slow.upgrade(path: "/history?count=0").status == 101)
            #expect(await eventually { registry.broadcast.current.count == 1 })
            let message = PreparedWebSocketMessage(binary: Array(repeating: 0x78, count: 16 * 1024))
            for _ in 0..<256 { registry.broadcast.withLock { $0.send(message) } }
            #expect(await eventually { registry.closeEvents.current.map(\.transport) == [.slowReader] })
            #expect(registry.closeEvents.current.first?.code == .abnormalClosure)
            #expect(await eventually { registry.broadcast.current.count == 0 })
        }
    }
}
