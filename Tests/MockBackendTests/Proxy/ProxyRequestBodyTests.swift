import Dispatch
import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request body going upstream as the client sends it: never held whole, never over a
/// bound, cut off upstream when the client leaves, dropped when the upstream answers first.
@Suite("Proxy: request bodies stream up")
struct ProxyRequestBodyTests {
    private static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    /// Distinct bytes, so a lost or reordered piece shows.
    private static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    }

    @Test(arguments: Transport.overSockets)
    func theFirstPartReachesTheUpstreamBeforeTheClientSendsTheRest(over transport: Transport) async throws {
        let body = Self.pattern(200_000)
        let upstream = try ScriptedUpstream([.readBody(count: body.count), .write(Self.ok)])
        defer { upstream.stop() }
        try await withProxy(over: transport, to: upstream.port) { proxy in
            let upload = try await PartialUpload(on: proxy, "POST", "/upload", contentLength: body.count)
            try upload.send(Array(body[..<100_000]))
            #expect(
                await eventually { upstream.receivedBody.count == 100_000 },
                "the upstream has \(upstream.receivedBody.count) bytes while the client holds the rest")
            let response = try await upload.finish(Array(body[100_000...]))
            #expect(response.status == 200)
            #expect(response.text == "ok")
            #expect(upstream.receivedBody == body)
            let head = try #require(upstream.receivedHeads.first)
            #expect(head.contains("Content-Length: 200000\r\n"))
            #expect(!head.lowercased().contains("transfer-encoding"))
            let journaled = try #require(proxy.app.requests.entries().first)
            #expect(journaled.bodySize == body.count)
            #expect(journaled.upstreamStatus == 200)
        }
    }

    /// `--proxy-timeout` counts the upstream's time: a client that pauses mid-upload for
    /// longer than the timeout still gets its answer.
    @Test(arguments: Transport.overSockets)
    func aClientThatPausesMidUploadIsNotAnUpstreamTimeout(over transport: Transport) async throws {
        let body = Self.pattern(20_000)
        let upstream = try ScriptedUpstream([.readBody(count: body.count), .write(Self.ok)])
        defer { upstream.stop() }
        try await withProxy(over: transport, to: upstream.port, proxySettings(timeout: .seconds(2))) { proxy in
            let upload = try await PartialUpload(on: proxy, "POST", "/upload", contentLength: body.count)
            try upload.send(Array(body[..<10_000]))
            #expect(await eventually { upstream.receivedBody.count == 10_000 })
            // The client's pause, past the timeout.
            try await Task.sleep(for: .seconds(3))
            let response = try await upload.finish(Array(body[10_000...]))
            #expect(response.status == 200, "\(response.text)")
            let whole = upstream.receivedBody == body
            #expect(whole, "the upstream has \(upstream.receivedBody.count) of \(body.count) bytes")
        }
    }

    /// An upstream that takes the whole body and then sends no head still times out: the
    /// timeout runs again once the body has gone up.
    @Test(arguments: Transport.overSockets)
    func anUpstreamSilentAfterTheWholeBodyIs504(over transport: Transport) async throws {
        let body = Self.pattern(20_000)
        let upstream = try ScriptedUpstream([.readBody(count: body.count), .hold])
        defer { upstream.stop() }
        try await withProxy(over: transport, to: upstream.port, proxySettings(timeout: .milliseconds(500))) { proxy in
            let upload = try await PartialUpload(on: proxy, "POST", "/upload", contentLength: body.count)
            try upload.send(Array(body[..<10_000]))
            #expect(await eventually { upstream.receivedBody.count == 10_000 })
            let response = try await upload.finish(Array(body[10_000...]))
            #expect(response.status == 504, "\(response.text)")
            #expect(response.text.contains("UPSTREAM_TIMEOUT"))
            let whole = upstream.receivedBody == body
            #expect(whole, "the upstream has \(upstream.receivedBody.count) of \(body.count) bytes")
        }
    }

    @Test func aChunkedBodyGoesUpChunkedPieceByPiece() async throws {
        let upstream = try ScriptedUpstream([.readUntilClosed])
        defer { upstream.stop() }
        try await withProxy(to: upstream.port) { proxy in
            let client = try proxy.connect()
            try client.send("PUT /items/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            try client.send("5\r\nfirst\r\n")
            #expect(await eventually { Self.dechunked(upstream.receivedBody).body == "first" })
            try client.send("6\r\nsecond\r\n0\r\n\r\n")
            #expect(await eventually { Self.dechunked(upstream.receivedBody).complete })
            #expect(Self.dechunked(upstream.receivedBody).body == "firstsecond")
            let head = try #require(upstream.receivedHeads.first)
            #expect(head.contains("Transfer-Encoding: chunked\r\n"))
            #expect(!head.contains("Content-Length"))
        }
    }

    /// A body over the server's own limit goes up all the same, however it arrives: the
    /// limit guards bodies this server holds, and a streamed body is never held whole. A
    /// path the server answers itself still refuses it.
    @Test(arguments: [false, true])
    func aBodyOverTheServersLimitStillGoesUp(chunked: Bool) async throws {
        let body = String(repeating: "x", count: 2048)
        let upstream = try ScriptedUpstream([chunked ? .readChunkedBody : .readBody(count: 2048), .write(Self.ok)])
        defer { upstream.stop() }
        var configuration = MockBackendConfiguration.forTesting()
        configuration.http.limits.maxBodyBytes = 1024
        configuration.proxy.upstream = UpstreamOrigin(scheme: "http", host: "127.0.0.1", port: upstream.port)
        try await withRunningServer(configuration) { proxy in
            let framing =
                chunked
                ? "Transfer-Encoding: chunked\r\n\r\n800\r\n\(body)\r\n0\r\n\r\n"
                : "Content-Length: \(body.count)\r\n\r\n\(body)"
            let client = try proxy.connect()
            try client.send("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\n\(framing)")
            let response = try await client.readResponse()
            #expect(response.status == 200, "\(response.text)")
            let received = upstream.receivedBody
            #expect((chunked ? Self.dechunked(received).body : String(decoding: received, as: UTF8.self)) == body)

            let own = try proxy.connect()
            try own.send("POST /__admin/mappings HTTP/1.1\r\nHost: 127.0.0.1\r\n\(framing)")
            let refused = try await own.readResponse()
            #expect(refused.status == 413)
            #expect(refused.text.contains("PAYLOAD_TOO_LARGE"))
        }
    }

    /// Over HTTP/2 the client leaves by resetting its stream, the connection staying.
    @Test(arguments: Transport.overSockets)
    func aClientThatLeavesMidBodyCutsTheUpstreamRequest(over transport: Transport) async throws {
        let upstream = try ScriptedUpstream([.readUntilClosed])
        defer { upstream.stop() }
        try await withProxy(over: transport, to: upstream.port) { proxy in
            let upload = try await PartialUpload(on: proxy, "POST", "/upload", contentLength: 10000)
            try upload.send(Array(repeating: UInt8(ascii: "a"), count: 4000))
            #expect(await eventually { upstream.receivedBody.count == 4000 })
            upload.abandon()
            // Reset, not a FIN: a FIN after 4,000 of 10,000 bytes would read as a body
            // the client stopped sending, not one it gave up.
            #expect(await eventually { upstream.bodyEnding != nil })
            #expect(upstream.bodyEnding == .reset)
            #expect(upstream.receivedBody.count == 4000)
            if let plain = proxy as? RunningServer {
                try await ProxyBadUpstreamTests.expectNoSocketsLeft(proxy: plain, upstreamPort: upstream.port)
            }
        }
    }

    @Test func anUpstreamThatAnswersBeforeTheBodyEndsClosesTheClientsConnectionAfterIt() async throws {
        let refusal = "HTTP/1.1 401 Unauthorized\r\nContent-Length: 6\r\n\r\nsignin"
        let upstream = try ScriptedUpstream([.write(refusal), .hold])
        defer { upstream.stop() }
        try await withProxy(to: upstream.port) { proxy in
            let client = try proxy.connect()
            try client.send("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n")
            try client.send(Array(repeating: UInt8(ascii: "a"), count: 1000))
            let response = try await client.readResponse()
            #expect(response.status == 401)
            #expect(response.text == "signin")
            // The rest of the body is not wanted; the connection cannot carry another
            // request while the client still sends this one's body.
            #expect(response.headers["Connection"] == "close")
            try? client.send(Array(repeating: UInt8(ascii: "a"), count: 99_000))
            #expect(await client.waitForClose() != .stillOpen)
        }
    }

    /// Over HTTP/2 an answer that came before the body ended arrives whole, and the rest of
    /// the body is still taken (and dropped) to its end: no RST_STREAM follows the answer.
    /// RFC 9113 §8.1 allows a RST_STREAM NO_ERROR there, but curl 7.88 then drops the
    /// answer it has read. The connection carries the next request.
    @Test(arguments: Transport.overSockets.filter { $0 != .http11 })
    func anUpstreamThatAnswersBeforeTheBodyEndsLetsTheClientsStreamFinish(over transport: Transport) async throws {
        let refusal = "HTTP/1.1 401 Unauthorized\r\nContent-Length: 6\r\n\r\nsignin"
        let upstream = try ScriptedUpstream([.write(refusal), .hold])
        defer { upstream.stop() }
        try await withProxy(over: transport, to: upstream.port) { proxy in
            let upload = try await PartialUpload(on: proxy, "POST", "/upload", contentLength: 200_000)
            try upload.send(Array(repeating: UInt8(ascii: "a"), count: 1000))
            try await upload.receive(untilContains: "signin")
            // More than the stream's first window: the server must keep giving it back.
            let response = try await upload.finish(Array(repeating: UInt8(ascii: "a"), count: 199_000))
            #expect(response.status == 401)
            #expect(response.text == "signin")
            let journaled = try await proxy.admin.requests.list(path: "/upload").first
            #expect(journaled?.http2Endings == nil, "\(String(describing: journaled))")
            #expect(try await proxy.request("GET", "/__admin/health").status == 200)
            let journal = proxy.app.requests.entries()
            #expect(Set(journal.compactMap(\.http2Connection)).count == 1, "\(journal)")
        }
    }

    @Test func expectContinueGetsItsContinueAndTheBodyGoesUp() async throws {
        let upstream = try ScriptedUpstream([.readBody(count: 5), .write(Self.ok)])
        defer { upstream.stop() }
        try await withProxy(to: upstream.port) { proxy in
            let client = try proxy.connect()
            try client.send(
                "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            try await client.receive(untilContains: "100 Continue\r\n\r\n")
            _ = client.takeBuffer()
            try client.send("hello")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(upstream.receivedBody == Array("hello".utf8))
            #expect(upstream.receivedHeads.first?.lowercased().contains("expect:") == false)
        }
    }

    /// An upstream that reads nothing: the client's sending stalls once the socket buffers
    /// (over HTTP/2, its stream's window) and the proxy's bound are full, long before the
    /// body is all sent (the proxy does not read on into memory).
    @Test(arguments: Transport.overSockets)
    func anUpstreamThatReadsNothingStallsTheClientsSending(over transport: Transport) async throws {
        let upstream = try ScriptedUpstream([.hold])
        defer { upstream.stop() }
        try await withProxy(over: transport, to: upstream.port) { proxy in
            let total = 64 << 20
            let upload = try await PartialUpload(on: proxy, "POST", "/upload", contentLength: total)
            let sent = await upload.sendUntilStalled(total: total, stallAfter: .seconds(1))
            #expect(sent < total / 2, "the client sent \(sent) of \(total) bytes to an upstream that reads nothing")
            #expect(sent > 0)
        }
    }

    /// The body of chunked bytes so far, and whether its last chunk has come.
    private static func dechunked(_ bytes: [UInt8]) -> (body: String, complete: Bool) {
        var body: [UInt8] = []
        var index = 0
        while let lineEnd = RawHTTPClient.find(Array("\r\n".utf8), in: Array(bytes[index...])) {
            guard let size = Int(String(decoding: bytes[index..<(index + lineEnd)], as: UTF8.self), radix: 16) else {
                break
            }
            let start = index + lineEnd + 2
            if size == 0 { return (String(decoding: body, as: UTF8.self), true) }
            guard start + size + 2 <= bytes.count else { break }
            body += bytes[start..<(start + size)]
            index = start + size + 2
        }
        return (String(decoding: body, as: UTF8.self), false)
    }
}
