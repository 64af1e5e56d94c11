import Foundation
import MockBackend
import MockBackendAPI
import MockBackendClient
import MockBackendTesting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The loopback transport against the server, which enforces RFC 6455 on its clients.
@Suite("LoopbackWebSocketTransport")
struct LoopbackWebSocketTests {
    private func request(_ server: RunningServer, jobId: String) throws -> URLRequest {
        var request = URLRequest(
            url: try #require(URL(string: "ws://127.0.0.1:\(server.port)/ws/progress?jobId=\(jobId)")))
        request.setValue("loopback-test", forHTTPHeaderField: "X-Client-Id")
        return request
    }

    /// The messages of a job, then the server's close 1000, answered: the server records a
    /// finished connection, which it does only once the closing handshake completed.
    @Test func deliversMessagesThenTheCloseAndAnswersIt() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 20)
            try await server.admin.imports.complete(jobId)
            let connection = try await LoopbackWebSocketTransport().connect(try request(server, jobId: jobId))
            var types: [String] = []
            var close: WebSocketMessage?
            while close == nil {
                switch try await connection.receive() {
                case .text(let text):
                    types.append(try #require(try ImportStreamEvent.decode(v1Message: text)).type)
                case .close(let code, let reason): close = .close(code: code, reason: reason)
                case let other: Issue.record("unexpected \(other)")
                }
            }
            #expect(types.first == "started" && types.last == "complete")
            #expect(close == .close(code: 1000, reason: ""))
            await #expect(throws: WebSocketTransportError.cancelled) { try await connection.receive() }
            let record = try #require(await eventuallyEnded(server, jobId))
            #expect(record.endReason == "finished")
            #expect(record.client == "loopback-test")
            // §4.1: a fresh random key, not the RFC's sample.
            let key = try #require(record.requestHeaders["Sec-WebSocket-Key"])
            #expect(key != RawWebSocketClient.sampleKey && Data(base64Encoded: key)?.count == 16)
        }
    }

    /// The server pings every 100 ms and drops a connection that sends nothing for 1 s, or
    /// closes it with 1002 on an unmasked frame: a connection that lasts 2.5 s and sees only
    /// pings has answered them with masked pongs. A machine busy with the rest of the suite
    /// can hold this task, or the server's loop, for longer than the idle bound, and the
    /// connection is then rightly dropped (seen while reading, or just after): the attempt is
    /// made again for up to 30 s (the start of a whole run on two cores can stall tasks for
    /// many seconds). A client that sends no pongs is dropped every time and fails the test.
    @Test func answersEveryPingWithAMaskedPong() async throws {
        var configuration = manualServerConfiguration()
        configuration.http.webSocket.pingInterval = .milliseconds(100)
        configuration.http.webSocket.idleTimeout = TestTiming.scaled(.seconds(1))
        try await withRunningServer(configuration) { server in
            let jobId = try await uploadImport(server, rows: 20)
            let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(30))
            while true {
                let canRetry = ContinuousClock.now < deadline
                let connection = try await LoopbackWebSocketTransport().connect(try request(server, jobId: jobId))
                var pings = 0
                do {
                    // Five pings, over at least two and a half idle bounds' worth of pinging
                    // at the server's pace: without pongs the connection would be dropped.
                    while pings < 25 {
                        let message = try await connection.receive()
                        guard message == .ping else {
                            Issue.record("expected pings only, got \(message)")
                            break
                        }
                        pings += 1
                    }
                } catch WebSocketTransportError.abnormalClosure where canRetry {
                    continue  // dropped as idle while a stall held this task or the server's loop
                }
                let subscribers = server.app.streams.existingStream(named: "imports/\(jobId)")?.subscriberCount
                // Dropped as idle by the same kind of stall, just after the last ping was read.
                if subscribers != 1, canRetry { continue }
                #expect(subscribers == 1)
                connection.cancel(code: WebSocketCloseCode.goingAway)
                await #expect(throws: WebSocketTransportError.cancelled) { try await connection.receive() }
                let record = try #require(await eventuallyEnded(server, jobId))
                #expect(record.endReason != "idle_timeout")
                return
            }
        }
    }

    @Test func aRefusedUpgradeThrowsItsStatus() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            await #expect(throws: WebSocketTransportError.handshakeRefused(status: 404)) {
                _ = try await LoopbackWebSocketTransport().connect(try request(server, jobId: "import_nope"))
            }
            let https = URLRequest(url: try #require(URL(string: "wss://127.0.0.1:\(server.port)/ws/progress")))
            await #expect(throws: WebSocketTransportError.unsupportedURL(https.url!.absoluteString)) {
                _ = try await LoopbackWebSocketTransport().connect(https)
            }
        }
    }

    /// The job's socket connection once it has ended.
    /// The job's latest socket, once it has ended.
    private func eventuallyEnded(_ server: RunningServer, _ jobId: String) async -> StreamConnectionSnapshot? {
        _ = await eventually { V1.sockets(server, jobId).last?.endedAt != nil }
        return V1.sockets(server, jobId).last.flatMap { $0.endedAt == nil ? nil : $0 }
    }
}
