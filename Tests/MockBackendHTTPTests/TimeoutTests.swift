import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

@Suite("Timeouts and idle connections")
struct TimeoutTests {
    @Test func halfSentHeadIsClosedAfterTheHeaderTimeoutWhileOthersAreServed() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.headerTimeout = .milliseconds(700)
        try await withHTTPServer(configuration: configuration, responder: TestRoutes.responder()) { server in
            let slow = try RawHTTPClient(server)
            let start = ContinuousClock.now
            try slow.send("GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: ")
            // 100 requests on fresh connections are answered while the slow client waits.
            for index in 0..<100 {
                let client = try RawHTTPClient(server)
                let response = try await client.get("/items/\(index)", headers: "Connection: close\r\n")
                #expect(response.text == "item \(index)")
            }
            // Trickling bytes does not extend the deadline: a byte every 100 ms for 10 s (times
            // the test time scale) would keep the connection open all that time if it did. The
            // close comes at the deadline — during the requests above, on a loaded machine — or
            // as soon after it as the machine runs the timer.
            var outcome = RawCloseOutcome.stillOpen
            let trickleStart = ContinuousClock.now
            while outcome == .stillOpen, ContinuousClock.now - trickleStart < TestTiming.scaled(.seconds(10)) {
                try? slow.send("a")
                outcome = await slow.waitForClose(timeout: .milliseconds(100))
            }
            #expect(outcome == .fin)
            #expect(ContinuousClock.now - start >= .milliseconds(650))
            #expect(ContinuousClock.now - trickleStart < TestTiming.scaled(.seconds(5)))
        }
    }

    @Test func idleKeepAliveConnectionIsClosedAfterTheIdleTimeout() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.idleTimeout = .milliseconds(300)
        try await withHTTPServer(configuration: configuration, responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            #expect(try await client.get("/hello").status == 200)
            #expect(await client.waitForClose(timeout: .seconds(3)) == .fin)
        }
    }

    @Test func streamsAreExemptFromTheIdleTimeout() async throws {
        let streams = StreamRegistry()
        var configuration = HTTPServerConfiguration()
        configuration.idleTimeout = .milliseconds(200)
        configuration.headerTimeout = .milliseconds(200)
        try await withHTTPServer(configuration: configuration, responder: TestRoutes.responder(streams: streams)) {
            server in
            let client = try RawHTTPClient(server)
            try client.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await client.waitForClose(timeout: .milliseconds(700)) == .stillOpen)
            streams.last?.finish()
            #expect(try await client.readResponse().text == "open\n")
        }
    }

    @Test func thousandIdleKeepAliveConnectionsDoNotBlockANewClient() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            var idle: [RawHTTPClient] = []
            for _ in 0..<1000 {
                let client = try RawHTTPClient(server)
                try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                idle.append(client)
            }
            for client in idle { #expect(try await client.readResponse().status == 200) }
            #expect(server.statistics.openConnections == 1000)
            let newcomer = try RawHTTPClient(server)
            #expect(try await newcomer.get("/hello").text == "hello")
            for client in idle { client.close() }
        }
    }
}
