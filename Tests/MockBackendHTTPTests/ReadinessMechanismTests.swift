import Logging
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

@testable import MockBackendHTTP

/// What each way of watching sockets (`ReadinessMechanism`) must get right over loopback:
/// the turns where an edge-triggered registration has no new edge to report (input left
/// after a bounded read turn, input that arrived while reading was paused, a socket that
/// drains while writing waits) and the end of the loop threads.
@Suite("Readiness mechanisms")
struct ReadinessMechanismTests {
    private func configuration(_ mechanism: ReadinessMechanism) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.readiness = mechanism
        return configuration
    }

    /// 60 requests in one write: reading pauses at 16 parsed ahead and must resume with
    /// the rest still in the socket and no new byte to announce it.
    @Test(arguments: readinessMechanisms)
    func pipelinedRequestsBeyondTheReadAheadBoundAreAllAnswered(mechanism: ReadinessMechanism) async throws {
        try await withHTTPServer(configuration: configuration(mechanism), responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send((1...60).map { "GET /items/\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
            for index in 1...60 {
                #expect(try await client.readResponse().text == "item \(index)")
            }
        }
    }

    /// A 3 MiB body sent at once is more than one read turn takes (8 reads of 16 KiB).
    @Test(arguments: readinessMechanisms)
    func aBodyLargerThanOneReadTurnArrivesWhole(mechanism: ReadinessMechanism) async throws {
        try await withHTTPServer(configuration: configuration(mechanism), responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            let body = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) }
            let head = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.count)\r\n\r\n"
            // The server reads the whole body before it answers, so a blocking send ends.
            try client.send(Array(head.utf8) + body)
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == body)
        }
    }

    /// A response larger than the socket buffers, to a client that reads slowly: the
    /// server waits for writability again and again, and every byte arrives.
    @Test(arguments: readinessMechanisms)
    func aSlowReaderGetsAWholeLargeResponse(mechanism: ReadinessMechanism) async throws {
        try await withHTTPServer(configuration: configuration(mechanism), responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(port: server.port ?? 0, receiveBufferSize: 4096)
            let size = 4 << 20
            try client.send("GET /json?bytes=\(size) HTTP/1.1\r\nHost: t\r\n\r\n")
            try await Task.sleep(for: .milliseconds(200))
            let response = try await client.readResponse()
            #expect(response.body.count == size)
            #expect(try await client.get("/hello").text == "hello")
        }
    }

    /// A client that goes away in the middle of a stream is noticed at once.
    @Test(arguments: readinessMechanisms)
    func aClientLeavingAStreamIsNoticed(mechanism: ReadinessMechanism) async throws {
        let streams = StreamRegistry()
        try await withHTTPServer(
            configuration: configuration(mechanism), responder: TestRoutes.responder(streams: streams)
        ) {
            server in
            let client = try RawHTTPClient(server)
            try client.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
            try await client.receive(untilContains: "open")
            client.close()
            #expect(await eventually { streams.endReasons.current == [.clientClosed] })
            #expect(await eventually { server.statistics.openConnections == 0 })
        }
    }

    /// Stopping a server ends the threads of its epoll loops, so servers started and
    /// stopped by tests leave nothing running.
    @Test func stoppingAServerEndsItsLoopThreads() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.readiness = .epoll
        let server = HTTPServer(
            configuration: configuration, responder: TestRoutes.responder(),
            logger: .init(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try server.start()
        let client = try RawHTTPClient(server)
        #expect(try await client.get("/hello").text == "hello")
        #if os(Linux)
        #expect(server.statistics.loopThreads == Platform.usableProcessorCount)
        #endif
        await server.stop()
        #expect(await eventually { server.statistics.loopThreads == 0 })
    }
}
