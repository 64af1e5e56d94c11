import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

@Suite("Connections over loopback")
struct KeepAliveTests {
    @Test func servesSeveralRequestsOnOneConnection() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            for _ in 0..<3 {
                let response = try await client.get("/hello")
                #expect(response.status == 200)
                #expect(response.text == "hello")
                #expect(response.headers["Content-Length"] == "5")
                #expect(response.headers["Date"] != nil)
                #expect(response.headers["Server"] == "mockbackend")
                #expect(response.headers["Connection"] == nil)
            }
            #expect(server.statistics.acceptedConnections == 1)
        }
    }

    @Test func honoursConnectionClose() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            let response = try await client.get("/hello", headers: "Connection: close\r\n")
            #expect(response.status == 200)
            #expect(response.headers["Connection"] == "close")
            #expect(await client.waitForClose() == .fin)
        }
    }

    @Test func answersThreePipelinedRequestsInOrder() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send(
                "GET /items/1 HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\ntwo"
                    + "GET /items/3 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await client.readResponse().text == "item 1")
            #expect(try await client.readResponse().text == "two")
            #expect(try await client.readResponse().text == "item 3")
        }
    }

    @Test func answersHEADWithoutABody() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try await client.readResponse(forHEAD: true)
            #expect(head.status == 200)
            #expect(head.headers["Content-Length"] == "5")
            // The next response starts right where the head ended: no body bytes in between.
            let next = try await client.get("/items/2")
            #expect(next.text == "item 2")
        }
    }

    @Test func readsAChunkedRequestBody() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
            try client.send("5\r\nhello\r\n")
            try client.send("6\r\n world\r\n0\r\n\r\n")
            #expect(try await client.readResponse().text == "hello world")
        }
    }

    @Test func sends100ContinueBeforeTheBody() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
            let interim = try await client.readResponse(timeout: .seconds(2))
            #expect(interim.status == 100)
            try client.send("data")
            let final = try await client.readResponse()
            #expect(final.status == 200)
            #expect(final.text == "data")
        }
    }

    @Test func refusesAnOversizedExpectContinueBodyWithoutReadingIt() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.limits.maxBodyBytes = 100
        try await withHTTPServer(configuration: configuration, responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 1000\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 413)
            #expect(response.text.contains("PAYLOAD_TOO_LARGE"))
            #expect(await client.waitForClose() == .fin)
        }
    }

    @Test func omitsContentLengthOn204() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let response = try await RawHTTPClient(server).get("/no-content")
            #expect(response.status == 204)
            #expect(response.headers["Content-Length"] == nil)
        }
    }

    /// A server that writes head and body in two calls without TCP_NODELAY stalls every
    /// request on a 40 ms delayed ACK. A busy machine makes some requests slow too, but
    /// never all of them: a good share of 100 must each take well under 40 ms.
    @Test func hundredSequentialRequestsDoNotStallOnDelayedACK() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            var fast = 0
            for _ in 0..<100 {
                let start = ContinuousClock.now
                try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi")
                #expect(try await client.readResponse().text == "hi")
                if ContinuousClock.now - start < .milliseconds(25) { fast += 1 }
            }
            #expect(fast >= 20, "\(fast) of 100 requests took under 25 ms")
        }
    }
}

@Suite("HTTP/1.0")
struct HTTP10Tests {
    @Test func answersAs10AndClosesByDefault() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send("GET /hello HTTP/1.0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.version == "HTTP/1.0")
            #expect(response.headers["Connection"] == "close")
            #expect(response.text == "hello")
            #expect(await client.waitForClose() == .fin)
        }
    }

    /// `ab -k` sends `Connection: keep-alive` on HTTP/1.0 and hangs on a server that ignores it.
    @Test func keepsAliveOnlyWhenAsked() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            for _ in 0..<3 {
                try client.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let response = try await client.readResponse()
                #expect(response.version == "HTTP/1.0")
                #expect(response.headers["Connection"] == "keep-alive")
                #expect(response.headers["Content-Length"] == "5")
            }
            #expect(server.statistics.acceptedConnections == 1)
        }
    }

    @Test func streamsAreNeverChunkedAndEndWithTheConnection() async throws {
        let streams = StreamRegistry()
        try await withHTTPServer(responder: TestRoutes.responder(streams: streams)) { server in
            let client = try RawHTTPClient(server)
            try client.send("GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            try await client.receive(atLeast: 10, timeout: .seconds(2))
            #expect(await eventually { streams.last != nil })
            streams.last?.write("more\n")
            streams.last?.finish()
            let response = try await client.readResponse()
            #expect(response.headers["Transfer-Encoding"] == nil)
            #expect(response.headers["Connection"] == "close")
            #expect(response.text == "open\nmore\n")
        }
    }

    @Test func refusesTransferEncodingAndCloses() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send("POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("TRANSFER_ENCODING_IN_HTTP_1_0"))
            #expect(await client.waitForClose() == .fin)
        }
    }
}
