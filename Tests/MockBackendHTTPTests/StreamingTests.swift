import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

@Suite("Streamed responses")
struct StreamingTests {
    @Test func streamsChunksAsTheyAreWrittenAndEndsCleanly() async throws {
        let streams = StreamRegistry()
        try await withHTTPServer(responder: TestRoutes.responder(streams: streams)) { server in
            let client = try RawHTTPClient(server)
            try client.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
            // The head and the first chunk arrive before the stream ends.
            try await client.receive(untilContains: "open\n")
            let head = String(decoding: client.buffer, as: UTF8.self)
            #expect(head.contains("Transfer-Encoding: chunked"))
            #expect(!head.contains("Content-Length"))
            streams.last?.write("second\n")
            streams.last?.finish()
            let response = try await client.readResponse()
            #expect(response.text == "open\nsecond\n")
            // The writer learns of the end once its last bytes are out: on the server's
            // loop, just after the client may have read them.
            #expect(await eventually { streams.endReasons.current == [.finished] })
            // The connection is kept for the next request.
            #expect(try await client.get("/hello").text == "hello")
        }
    }

    @Test func clientLeavingMidStreamLeavesNoDescriptorTimerOrConnectionBehind() async throws {
        let streams = StreamRegistry()
        try await withHTTPServer(responder: TestRoutes.responder(streams: streams)) { server in
            let port = server.port ?? 0
            let before = SocketCensus.serverSideDescriptors(port: port)
            for _ in 0..<5 {
                let client = try RawHTTPClient(server)
                try client.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
                try await client.receive(atLeast: 1, timeout: .seconds(2))
                client.close()
            }
            #expect(await eventually { streams.endReasons.current.count == 5 })
            #expect(streams.endReasons.current.allSatisfy { $0 == .clientClosed })
            #expect(await eventually { server.statistics.openDescriptors == 0 })
            // Closing is asynchronous: each count reaches zero once its cancel handler has run.
            #expect(await eventually { server.statistics.openConnections == 0 })
            #expect(await eventually { server.statistics.activeTimers == 0 })
            #expect(await eventually { server.statistics.liveConnectionObjects == 0 })
            if let before {
                #expect(await eventually { SocketCensus.serverSideDescriptors(port: port) == before })
                #expect(before == 0)
            }
            // Writing to a stream that has ended is harmless.
            streams.last?.write("late")
            #expect(try await RawHTTPClient(server).get("/hello").status == 200)
        }
    }

    @Test func slowReaderIsDisconnectedAtTheBound() async throws {
        let streams = StreamRegistry()
        var configuration = HTTPServerConfiguration()
        configuration.maxUnsentStreamBytes = 256 * 1024
        try await withHTTPServer(configuration: configuration, responder: TestRoutes.responder(streams: streams)) {
            server in
            let client = try RawHTTPClient(server)
            // The client asks for 4 MiB and reads none of it.
            try client.send("GET /flood HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await eventually { streams.endReasons.current == [.slowReader] })
            #expect(await eventually { server.statistics.openConnections == 0 })
            #expect(await eventually { server.statistics.liveConnectionObjects == 0 })
        }
    }

    @Test func stopEndsStreamsCleanlyAndFinishesResponses() async throws {
        let streams = StreamRegistry()
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        let server = HTTPServer(
            configuration: configuration, responder: TestRoutes.responder(streams: streams),
            logger: .init(label: "test"))
        try server.start()
        let port = try #require(server.port)
        let streaming = try RawHTTPClient(port: port)
        try streaming.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
        try await streaming.receive(atLeast: 1, timeout: .seconds(2))
        let idle = try RawHTTPClient(port: port)
        #expect(try await idle.get("/hello").status == 200)
        let partial = try RawHTTPClient(port: port)
        try partial.send("GET /hel")
        // Connections still in the listen backlog are reset when the listener closes;
        // this test is about the ones the server has taken.
        #expect(await eventually { server.statistics.openConnections == 3 })

        // A grace period far longer than the bound: only connections that end by
        // themselves let `stop` return in time; a forced close would take 30 s.
        let start = ContinuousClock.now
        await server.stop(gracePeriod: .seconds(30))
        #expect(ContinuousClock.now - start < TestTiming.scaled(.seconds(10)))
        #expect(streams.endReasons.current == [.serverStopping])
        // The stream got its last chunk: a clean end, not a cut.
        let response = try await streaming.readResponse()
        #expect(response.text == "open\n")
        #expect(await streaming.waitForClose() == .fin)
        #expect(await idle.waitForClose() == .fin)
        #expect(await partial.waitForClose() == .fin)
        #expect(throws: RawClientError.self) { try RawHTTPClient(port: port) }
        #expect(server.statistics.openConnections == 0)
    }
}
