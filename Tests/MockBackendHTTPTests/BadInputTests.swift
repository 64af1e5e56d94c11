import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

@Suite("Bad input over loopback")
struct BadInputTests {
    static let cases: [(name: String, bytes: String, status: Int)] = [
        ("malformed request line", "GET/HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("malformed header", "GET /hello HTTP/1.1\r\nHost: t\r\nno-colon\r\n\r\n", 400),
        (
            "CL and TE",
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400
        ),
        (
            "two Content-Lengths",
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400
        ),
        ("invalid chunk size", "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", 400),
        ("obs-fold", "GET /hello HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n\tcontinued\r\n\r\n", 400),
        ("missing Host", "GET /hello HTTP/1.1\r\nAccept: */*\r\n\r\n", 400),
        ("target too long", "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414),
        (
            "headers too large",
            "GET /hello HTTP/1.1\r\nHost: t\r\nX-Big: " + String(repeating: "b", count: 17000) + "\r\n\r\n", 431
        ),
        ("body too large", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999\r\n\r\n", 413),
        ("unsupported version", "GET /hello HTTP/3.0\r\nHost: t\r\n\r\n", 505),
    ]

    @Test("answers with its status and closes the connection", arguments: cases)
    func answersAndCloses(_ testCase: (name: String, bytes: String, status: Int)) async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send(testCase.bytes)
            let response = try await client.readResponse()
            #expect(response.status == testCase.status, "\(testCase.name)")
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.headers["Connection"] == "close")
            #expect(await client.waitForClose() == .fin, "\(testCase.name)")
        }
    }

    @Test func answersRequestsBeforeTheBadOneFirst() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\nBROKEN LINE\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            #expect(try await client.readResponse().status == 400)
            #expect(await client.waitForClose() == .fin)
        }
    }

    @Test func unknownMethodOnKnownPathIs405WithAllow() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send("PATCH /hello HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 405)
            #expect(response.headers["Allow"] == "GET, HEAD, OPTIONS")
            #expect(response.text.contains("METHOD_NOT_ALLOWED"))
            // 405 is not a framing problem: the connection stays usable.
            #expect(try await client.get("/hello").status == 200)
        }
    }

    @Test func aThrowingHandlerIs500AndTheConnectionLives() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            let response = try await client.get("/fail")
            #expect(response.status == 500)
            #expect(response.text.contains("INTERNAL_ERROR"))
            #expect(try await client.get("/hello").status == 200)
        }
    }

    @Test func overTheConnectionLimitGets503() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnections = 2
        // The clients connect before they speak: a busy run must not let the header
        // timeout (counted from accept) close one first.
        configuration.headerTimeout = .seconds(120)
        try await withHTTPServer(configuration: configuration, responder: TestRoutes.responder()) { server in
            let first = try RawHTTPClient(server)
            let second = try RawHTTPClient(server)
            #expect(try await first.get("/hello").status == 200)
            #expect(try await second.get("/hello").status == 200)
            let third = try RawHTTPClient(server)
            let refused = try await third.readResponse()
            #expect(refused.status == 503)
            #expect(refused.text.contains("TOO_MANY_CONNECTIONS"))
            first.close()
            #expect(await eventually { server.statistics.openConnections == 1 })
            #expect(try await RawHTTPClient(server).get("/hello").status == 200)
        }
    }
}
