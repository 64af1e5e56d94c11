import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// Upstreams that refuse, stay silent, or answer with something that is no HTTP: each gets
/// its documented error, nothing hangs, and no descriptor is left open on either side.
@Suite("Proxy: bad upstreams and bad input")
struct ProxyBadUpstreamTests {
    /// Sends `GET /x` through a proxy in front of `steps` and returns the answer and how
    /// long it took, after checking that no socket is left open on either side of the proxy
    /// (the process's real descriptors, counted in /proc).
    private func answer(to steps: [ScriptedUpstream.Step]) async throws -> (RawResponse, [String], Duration) {
        let upstream = try ScriptedUpstream(steps)
        defer { upstream.stop() }
        return try await withProxy(to: upstream.port, proxySettings(timeout: .milliseconds(400))) { proxy in
            let start = ContinuousClock.now
            let response = try await proxy.request("GET", "/x")
            let took = ContinuousClock.now - start
            try await Self.expectNoSocketsLeft(proxy: proxy, upstreamPort: upstream.port)
            return (response, upstream.receivedHeads, took)
        }
    }

    /// No connection of the proxy's is left open: to its upstream, or from its clients.
    /// Polled slowly: each look scans /proc.
    static func expectNoSocketsLeft(
        proxy: RunningServer, upstreamPort: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(
            await eventually(interval: .milliseconds(100)) {
                SocketCensus.clientSideDescriptors(remotePort: upstreamPort) == 0
            },
            "sockets to the upstream left open", sourceLocation: sourceLocation)
        #expect(
            await eventually(interval: .milliseconds(100)) {
                SocketCensus.serverSideDescriptors(port: proxy.port) == 0
            },
            "client sockets left open", sourceLocation: sourceLocation)
    }

    @Test func anUpstreamThatRefusesIs502Unavailable() async throws {
        // A port nothing listens on: bound, then closed.
        let port = try ScriptedUpstream([]).closedPort()
        try await withProxy(to: port) { proxy in
            let response = try await proxy.request("GET", "/x")
            #expect(response.status == 502)
            #expect(response.text.contains("UPSTREAM_UNAVAILABLE"), "\(response.text)")
            #expect(response.headers["Content-Type"] == "application/problem+json")
            let journaled = try #require(proxy.app.requests.entries().first)
            #expect(journaled.proxied == true)
            #expect(journaled.upstreamStatus == nil)
        }
    }

    @Test func anUpstreamThatNeverAnswersIs504AfterTheTimeout() async throws {
        let (response, heads, took) = try await answer(to: [.hold])
        #expect(response.status == 504)
        #expect(response.text.contains("UPSTREAM_TIMEOUT"))
        // The configured 400 ms, not the default 30 s (the bound allows for a loaded machine).
        #expect(took < TestTiming.scaled(.seconds(15)), "\(took)")
        #expect(heads.first?.hasPrefix("GET /x HTTP/1.1\r\n") == true)
    }

    @Test(arguments: [
        (
            "a malformed status line", [ScriptedUpstream.Step.write("HTTQ/1.1 200 OK\r\n\r\n"), .close],
            "UPSTREAM_BAD_RESPONSE"
        ),
        ("a field without a colon", [.write("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n"), .close], "UPSTREAM_BAD_RESPONSE"),
        // A whole head, ended, but of 1 MB: refused at the head limit, not for its end.
        (
            "a head of 1 MB",
            [.write("HTTP/1.1 200 OK\r\nX-Big: "), .flood(count: 1024 * 1024), .write("\r\n\r\n"), .hold],
            "larger than"
        ),
        (
            "an endless header", [.write("HTTP/1.1 200 OK\r\nX-Endless: "), .flood(count: 4 * 1024 * 1024), .hold],
            "larger than"
        ),
        ("a close before any byte", [.close], "UPSTREAM_BAD_RESPONSE"),
        ("a reset before any byte", [.reset], "UPSTREAM_UNAVAILABLE"),
    ])
    func anUnreadableAnswerIs502(name: String, steps: [ScriptedUpstream.Step], says: String) async throws {
        let (response, _, _) = try await answer(to: steps)
        #expect(response.status == 502, "\(name): \(response.status) \(response.text)")
        #expect(response.text.contains(says), "\(name): \(response.text)")
    }

    @Test func aBadChunkAfterTheHeadBreaksTheClientsBodyOff() async throws {
        let upstream = try ScriptedUpstream([
            .write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n"), .hold,
        ])
        defer { upstream.stop() }
        try await withProxy(to: upstream.port) { proxy in
            let client = try proxy.connect()
            try client.send("GET /chunks HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await client.waitForClose() != .stillOpen)
            let text = String(decoding: client.buffer, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK"))
            #expect(!text.hasSuffix("\r\n0\r\n\r\n"))
            try await Self.expectNoSocketsLeft(proxy: proxy, upstreamPort: upstream.port)
        }
    }

    @Test(arguments: [false, true])
    func aBodyCutMidChunkEndsTheClientsResponseTheSameWay(reset: Bool) async throws {
        let upstream = try ScriptedUpstream([
            .write(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n5\r\nhello\r\n8\r\nhal"
            ),
            .pause(.milliseconds(100)), reset ? .reset : .close,
        ])
        defer { upstream.stop() }
        try await withProxy(to: upstream.port) { proxy in
            let client = try proxy.connect()
            try client.send("GET /cut HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await client.waitForClose() == (reset ? .reset : .fin))
            let text = String(decoding: client.buffer, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK"))
            #expect(text.contains("hello"))
            #expect(!text.hasSuffix("\r\n0\r\n\r\n"))
            try await Self.expectNoSocketsLeft(proxy: proxy, upstreamPort: upstream.port)
        }
    }

    /// An event stream the upstream cuts inside an event: what came of that event reaches
    /// the client before the end, over every protocol (over h2, before the RST_STREAM).
    @Test(arguments: Transport.overSockets)
    func anEventStreamCutInsideAnEventDeliversWhatCameBeforeTheEnd(over transport: Transport) async throws {
        let events = "data: whole\n\ndata: unfinish"
        let upstream = try ScriptedUpstream([
            .write(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + String(events.utf8.count, radix: 16) + "\r\n" + events + "\r\n"),
            .pause(.milliseconds(200)), .close,
        ])
        defer { upstream.stop() }
        try await withProxy(over: transport, to: upstream.port) { proxy in
            let stream = try await proxy.openStream("/sse/cut")
            #expect(await stream.waitForClose() == .fin)
            let body = String(decoding: stream.streamedBody, as: UTF8.self)
            #expect(body.contains("data: whole\n\n"), "\(body)")
            #expect(body.hasSuffix("data: unfinish"), "\(body)")
        }
    }

    @Test func aLengthFramedBodyCutShortIsNotCompletedForTheClient() async throws {
        let upstream = try ScriptedUpstream([
            .write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part"), .pause(.milliseconds(100)), .close,
        ])
        defer { upstream.stop() }
        try await withProxy(to: upstream.port) { proxy in
            let client = try proxy.connect()
            try client.send("GET /short HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await client.waitForClose() == .fin)
            let text = String(decoding: client.buffer, as: UTF8.self)
            #expect(text.contains("Content-Length: 100\r\n"))
            #expect(text.hasSuffix("only part"))
        }
    }

    @Test func aMappingToAHostNotAllowedIsRefused() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let refused = try await proxy.request(
                "POST", "/__admin/mappings",
                body: #"{"request":{"urlPath":"/elsewhere"},"response":{"proxyBaseUrl":"http://example.org"}}"#)
            #expect(refused.status == 400)
            #expect(refused.text.contains("PROXY_HOST_NOT_ALLOWED"), "\(refused.text)")
            // The --proxy host is allowed: the mapping proxies its path there, prefix removed.
            let allowed = try await proxy.request(
                "POST", "/__admin/mappings",
                body:
                    #"{"priority":1,"request":{"urlPathPattern":"/legacy/.*"},"response":{"proxyBaseUrl":"http://127.0.0.1:\#(upstream.port)","proxyUrlPrefixToRemove":"/legacy","additionalProxyRequestHeaders":{"X-From-Mapping":"yes"}}}"#
            )
            #expect(allowed.status == 201, "\(allowed.text)")
            let answer = try await proxy.request("GET", "/legacy/health")
            #expect(answer.status == 200)
            let seen = try #require(upstream.app.requests.entries().first)
            #expect(seen.path == "/health")
            #expect(seen.headers.contains { $0.key.lowercased() == "x-from-mapping" && $0.value == "yes" })
            let malformed = try await proxy.request(
                "POST", "/__admin/mappings",
                body: #"{"request":{"urlPath":"/x"},"response":{"proxyBaseUrl":"ftp://example.org"}}"#)
            #expect(malformed.status == 400)
        }
    }
}

extension ScriptedUpstream {
    /// Stops this server and returns its port, which then refuses connections.
    func closedPort() -> Int {
        stop()
        return port
    }
}
