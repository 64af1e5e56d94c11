import Foundation
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

@Suite("The --sse-gzip option", .serialized)
struct SSEGzipOptionTests {
    /// How the option is given to the process.
    enum Given: String, CaseIterable, Sendable {
        case flag
        case environment
        case notAtAll
    }

    /// The flag and `MOCKBACKEND_SSE_GZIP=1` each make the process gzip an event stream
    /// for a client that accepts it, and a pushed event inflates as soon as it arrives;
    /// without either, the same request gets the stream as it is. Fails if the option or
    /// its variable does not reach the server's configuration.
    @Test(arguments: Given.allCases)
    func reachesTheServer(_ given: Given) async throws {
        let server = try ServerProcess(
            ["--port", "0"] + (given == .flag ? ["--sse-gzip"] : []),
            environment: given == .environment ? ["MOCKBACKEND_SSE_GZIP": "1"] : [:])
        let port = try await server.waitForListening()
        let stream = try RawHTTPClient(port: port)
        try stream.send("GET /sse/channels/cli HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n")
        try await stream.receive(untilContains: "\r\n\r\n")
        let head = String(decoding: stream.buffer, as: UTF8.self).lowercased()
        let gzipped = given != .notAtAll
        #expect(head.contains("content-encoding: gzip") == gzipped, "\(head)")

        // The head goes out just before the stream subscribes the connection: a push that
        // reached no one (`"delivered":0`) is made again.
        #expect(try await Self.pushUntilDelivered("from the cli", port: port))
        let event = "data: from the cli\n\n"
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(30))
        var text = ""
        while ContinuousClock.now < deadline, !text.hasSuffix(event) {
            _ = try? await stream.receive(timeout: .milliseconds(20))
            text =
                gzipped
                ? String(decoding: (try? GzipInflater().decompress(stream.streamedBody)) ?? [], as: UTF8.self)
                : String(decoding: stream.streamedBody, as: UTF8.self)
        }
        #expect(text.hasSuffix(event), "\(text)")
        server.process.terminate()
        #expect(await server.waitForExit(timeout: .seconds(10)) == 0)
    }

    /// Pushes `data` to `channels/cli` until one subscriber got it.
    private static func pushUntilDelivered(_ data: String, port: Int) async throws -> Bool {
        let admin = AdminClient(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")))
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(30))
        while ContinuousClock.now < deadline {
            if try await admin.streams.push(to: "channels/cli", data: .string(data)).delivered == 1 { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
