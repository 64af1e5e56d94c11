import Foundation
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

private func events(_ body: [UInt8]) -> [ServerSentEvent] {
    var parser = SSEParser()
    return parser.feed(body).compactMap { if case .event(let event) = $0 { event } else { nil } }
}

@Suite("SSE conformance endpoints")
struct ConformanceRoutesTests {
    @Test func rawSendsExactBytesInTheGivenWriteSizes() async throws {
        try await withRunningServer { server in
            let client = try server.connect()
            let sent = ContinuousClock.now
            // CR-only line ends and a split multi-byte character, in 3-byte writes 30 ms apart.
            try client.send(
                "GET /conformance/sse/raw?body=data:%20%C3%A9t%C3%A9%0D%0D&chunk=3&chunkDelay=30 HTTP/1.1\r\nHost: t\r\n\r\n"
            )
            try await client.receive(untilContains: "\r\n\r\n")
            let headEnd = RawHTTPClientTestsSupport.headEnd(client.buffer)
            try await client.receive(atLeast: headEnd + 13, timeout: .seconds(5))
            let body = Array(client.buffer[headEnd...])
            #expect(body == Array("data: été\r\r".utf8))
            // Five writes (3, 3, 3, 3 and 1 bytes) with 30 ms between them: the last byte
            // cannot arrive sooner than the four pauses allow, however late the reads are.
            #expect(ContinuousClock.now - sent >= .milliseconds(120))
            #expect(events(body) == [ServerSentEvent(data: "été")])
            let mime = try await server.connect().get("/conformance/sse/raw?body=x&mime=text/plain")
            #expect(mime.headers["Content-Type"] == "text/plain")
            #expect(try await server.connect().get("/conformance/sse/raw?chunk=-1").status == 400)
        }
    }

    /// web-platform-tests `format-mime-trailing-semicolon`: RFC 9110 §8.3.1 allows an empty
    /// parameter, so `text/event-stream;` is a media type and is sent exactly as given.
    @Test func rawSendsAMediaTypeWithATrailingSemicolonAsGiven() async throws {
        try await withRunningServer { server in
            let response = try await server.connect().get(
                "/conformance/sse/raw?mime=text/event-stream%3B&body=data%3A%20x%0A%0A")
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "text/event-stream;")
            #expect(response.text == "data: x\n\n")
            let spaced = try await server.connect().get(
                "/conformance/sse/raw?mime=text/event-stream%20%3B%20charset%3Dutf-8&body=x")
            #expect(spaced.status == 200)
            #expect(spaced.headers["Content-Type"] == "text/event-stream ; charset=utf-8")
            let garbage = try await server.connect().get("/conformance/sse/raw?mime=text%0D%0AX-Injected:%201")
            #expect(garbage.status == 400)
            #expect(garbage.headers["X-Injected"] == nil)
        }
    }

    @Test(arguments: Transport.available)
    func echoesTheLastEventID(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let first = try await server.get("/conformance/sse/echo-last-event-id?id=abc")
            #expect(events(first.body) == [ServerSentEvent(data: "none", id: "abc")])
            let second = try await server.get(
                "/conformance/sse/echo-last-event-id", headers: "Last-Event-ID: abc\r\n")
            #expect(events(second.body).first?.data == "abc")
            #expect(second.text.contains("retry: 100"))
        }
    }

    @Test(arguments: Transport.available)
    func statusThenOK(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let first = try await server.get("/conformance/sse/status-then-ok?status=503&key=k1")
            #expect(first.status == 503)
            #expect(first.headers["Retry-After"] == "0")
            let second = try await server.get("/conformance/sse/status-then-ok?status=503&key=k1&retry=250")
            #expect(second.status == 200)
            #expect(second.text.contains("retry: 250"))
            #expect(events(second.body) == [ServerSentEvent(data: "ok", id: "1")])
            #expect(try await server.get("/conformance/sse/status-then-ok?status=99").status == 400)
        }
    }

    @Test(arguments: Transport.available)
    func reconnectThen204(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let first = try await server.get("/conformance/sse/reconnect-then-204")
            #expect(first.status == 200)
            #expect(events(first.body) == [ServerSentEvent(data: "first", id: "1")])
            let again = try await server.get(
                "/conformance/sse/reconnect-then-204", headers: "Last-Event-ID: 1\r\n")
            #expect(again.status == 204)
        }
    }

    @Test func redirects() async throws {
        try await withRunningServer { server in
            let response = try await server.connect().get("/conformance/sse/redirect?code=302")
            #expect(response.status == 302)
            #expect(response.headers["Location"] == "/conformance/sse/echo-last-event-id")
            let custom = try await server.connect().get("/conformance/sse/redirect?to=/sse/channels/x")
            #expect(custom.status == 307)
            #expect(custom.headers["Location"] == "/sse/channels/x")
            #expect(try await server.connect().get("/conformance/sse/redirect?code=304").status == 400)
            #expect(
                try await server.connect().get("/conformance/sse/redirect?to=https://elsewhere.example").status == 400)
            #expect(try await server.connect().get("/conformance/sse/redirect?to=//elsewhere.example").status == 400)
        }
    }

    @Test func reportsTheHeadersTheClientSent() async throws {
        try await withRunningServer { server in
            let response = try await server.connect().get(
                "/conformance/sse/headers", headers: "Accept: text/event-stream\r\nLast-Event-ID: 7\r\n")
            let event = try #require(events(response.body).first)
            #expect(event.type == "headers")
            let headers = try JSONDecoder().decode([String: String].self, from: Data(event.data.utf8))
            #expect(headers["Accept"] == "text/event-stream")
            #expect(headers["Last-Event-ID"] == "7")
        }
    }

    /// `status-then-ok?status=205` sent a problem body with 205 Reset Content, which
    /// RFC 9110 §15.3.6 forbids; it goes out with `Content-Length: 0`, and the connection
    /// stays usable.
    @Test func resetContentHasNoContent() async throws {
        try await withRunningServer { server in
            let client = try server.connect()
            try client.send("GET /conformance/sse/status-then-ok?status=205&key=rc HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 205)
            #expect(response.headers["Content-Length"] == "0")
            #expect(response.body.isEmpty)
            #expect(try await client.get("/health").status == 200)
        }
    }
}

enum RawHTTPClientTestsSupport {
    static func headEnd(_ bytes: [UInt8]) -> Int {
        for index in 0..<(bytes.count - 3) where bytes[index..<(index + 4)].elementsEqual([13, 10, 13, 10]) {
            return index + 4
        }
        return bytes.count
    }
}
