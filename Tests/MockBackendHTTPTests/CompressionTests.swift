import Foundation
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

@Suite struct CompressionTests {
    @Test func gzipRoundTripsAnyBytes() throws {
        var generator = SystemRandomNumberGenerator()
        for size in [0, 1, 17, 1024, 70_000] {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let compressed = GzipDeflater.gzip(bytes)
            #expect(Array(compressed.prefix(2)) == [0x1F, 0x8B], "gzip magic")
            #expect(try GzipInflater.gunzip(compressed) == bytes)
        }
    }

    @Test func aTruncatedOrCorruptBodyIsAnError() {
        let compressed = GzipDeflater.gzip(Array(repeating: 65, count: 5000))
        #expect(throws: GzipError.self) { try GzipInflater.gunzip(Array(compressed.dropLast(4))) }
        var corrupt = compressed
        corrupt[12] ^= 0xFF
        #expect(throws: GzipError.self) { try GzipInflater.gunzip(corrupt) }
    }

    @Test func jsonOfOneKibibyteOrMoreIsGzippedForAClientThatAcceptsIt() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let client = try RawHTTPClient(server)
            let response = try await client.get("/json?bytes=4096", headers: "Accept-Encoding: br, gzip;q=0.8\r\n")
            #expect(response.headers["Content-Encoding"] == "gzip")
            #expect(response.headers["Vary"] == "Accept-Encoding")
            #expect(Int(response.headers["Content-Length"] ?? "") == response.body.count)
            #expect(response.body.count < 4096)
            let inflated = try GzipInflater.gunzip(response.body)
            #expect(inflated.count == 4096)
            #expect(inflated.first == UInt8(ascii: "[") && inflated.last == UInt8(ascii: "]"))
        }
    }

    @Test func noGzipWithoutAcceptEncodingOrWithQualityZero() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            for header in [
                "", "Accept-Encoding: gzip;q=0\r\n", "Accept-Encoding: br\r\n", "Accept-Encoding: *;q=0\r\n",
            ] {
                let response = try await RawHTTPClient(server).get("/json?bytes=4096", headers: header)
                #expect(response.headers["Content-Encoding"] == nil, "\(header)")
                #expect(response.body.count == 4096)
                // The representation still depends on the request, so caches must know.
                #expect(response.headers["Vary"] == "Accept-Encoding")
            }
            let wildcard = try await RawHTTPClient(server).get("/json?bytes=4096", headers: "Accept-Encoding: *\r\n")
            #expect(wildcard.headers["Content-Encoding"] == "gzip")
        }
    }

    @Test func bodiesUnderOneKibibyteAreSentAsTheyAre() async throws {
        try await withHTTPServer(responder: TestRoutes.responder()) { server in
            let small = try await RawHTTPClient(server).get("/json?bytes=1023", headers: "Accept-Encoding: gzip\r\n")
            #expect(small.headers["Content-Encoding"] == nil)
            #expect(small.body.count == 1023)
            let threshold = try await RawHTTPClient(server).get(
                "/json?bytes=1024", headers: "Accept-Encoding: gzip\r\n")
            #expect(threshold.headers["Content-Encoding"] == "gzip")
        }
    }

    @Test func eventStreamsAreNotCompressedByDefault() async throws {
        let streams = StreamRegistry()
        try await withHTTPServer(responder: TestRoutes.responder(streams: streams)) { server in
            let client = try RawHTTPClient(server)
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n")
            #expect(await eventually { streams.last != nil })
            streams.last?.write("data: plain\n\n")
            try await client.receive(untilContains: "data: plain")
            let head = String(decoding: client.takeBuffer(), as: UTF8.self)
            #expect(!head.lowercased().contains("content-encoding"))
        }
    }

    /// What a gzip stream received so far inflates to; empty when it does not inflate.
    static func inflated(_ bytes: [UInt8]) -> String {
        (try? String(decoding: GzipInflater().decompress(bytes), as: UTF8.self)) ?? ""
    }

    /// With `--sse-gzip` every write is flushed on its own: each event can be inflated as
    /// soon as it arrives, without waiting for the next one or for the end.
    @Test func aGzipEventStreamDeliversEachEventWithoutWaitingForTheNext() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.compression.compressesEventStreams = true
        let streams = StreamRegistry()
        try await withHTTPServer(configuration: configuration, responder: TestRoutes.responder(streams: streams)) {
            server in
            let client = try RawHTTPClient(server)
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n")
            try await client.receive(untilContains: "\r\n\r\n")
            #expect(await eventually { streams.last != nil })
            for (index, event) in ["id: 1\ndata: one\n\n", ": heartbeat\n\n", "id: 2\ndata: two\n\n"].enumerated() {
                streams.last?.write(event)
                let arrived = await client.receiveUntilInflated(endsWith: event)
                #expect(arrived, "event \(index) arrived inflatable on its own: \(Self.inflated(client.streamedBody))")
            }
            let head = String(decoding: client.buffer.prefix(400), as: UTF8.self).lowercased()
            #expect(head.contains("content-encoding: gzip"))
            #expect(head.contains("vary: accept-encoding"))
            streams.last?.finish()
            try await client.receive(untilContains: "\r\n0\r\n\r\n")
            let inflater = GzipInflater()
            let whole = try inflater.decompress(client.streamedBody)
            #expect(inflater.isFinished, "the gzip trailer ends the stream")
            #expect(String(decoding: whole, as: UTF8.self) == "id: 1\ndata: one\n\n: heartbeat\n\nid: 2\ndata: two\n\n")
        }
    }
}

extension RawHTTPClient {
    /// Receives until the gzip stream's body so far inflates to text ending in `suffix`.
    func receiveUntilInflated(endsWith suffix: String, timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while ContinuousClock.now < deadline {
            if CompressionTests.inflated(streamedBody).hasSuffix(suffix) { return true }
            _ = try? await receive(timeout: .milliseconds(20))
        }
        return CompressionTests.inflated(streamedBody).hasSuffix(suffix)
    }
}
