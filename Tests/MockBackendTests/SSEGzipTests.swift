import MockBackend
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// `--sse-gzip` (`compressesEventStreams`) on the mock's real streams, whose events and
/// heartbeats reach each connection as broadcasts rather than as writes of its own.
@Suite("gzip on the mock's event streams")
struct SSEGzipTests {
    /// A manual clock: heartbeats come only when the test moves it, so nothing arrives
    /// between the event a test waits for and the next one it causes.
    private static func configuration(sseGzip: Bool) -> MockBackendConfiguration {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.http.compression.compressesEventStreams = sseGzip
        configuration.clock = .manual
        configuration.heartbeatInterval = .seconds(15)
        return configuration
    }

    /// Opens `/sse/channels/NAME` accepting gzip; returns once the head is in and the
    /// connection is subscribed.
    private static func subscribe(_ server: some AppUnderTest, channel: String) async throws -> any StreamClient {
        let client = try await server.openStream("/sse/channels/\(channel)", headers: ["Accept-Encoding": "gzip"])
        _ = await eventually {
            server.app.streams.existingStream(named: "channels/\(channel)")?.snapshot.subscribers.count == 1
        }
        return client
    }

    private static func push(_ server: some AppUnderTest, channel: String, _ data: String) async throws {
        try await server.admin.streams.push(to: "channels/\(channel)", data: .string(data))
    }

    /// What the gzip body received so far inflates to; empty when it does not inflate.
    private static func inflated(_ client: any StreamClient) -> String {
        (try? String(decoding: GzipInflater().decompress(client.streamedBody), as: UTF8.self)) ?? ""
    }

    /// Receives until the body so far inflates to text ending in `suffix`.
    private static func receiveUntilInflated(_ client: any StreamClient, endsWith suffix: String) async -> Bool {
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(5))
        while ContinuousClock.now < deadline {
            if inflated(client).hasSuffix(suffix) { return true }
            await client.receiveSome(timeout: .milliseconds(20))
        }
        return inflated(client).hasSuffix(suffix)
    }

    /// Each pushed event and a heartbeat can be inflated from the bytes received so far,
    /// before anything else is sent. Fails if the stream is not gzip, or if a broadcast
    /// part (event or heartbeat) is not flushed on its own (`Z_SYNC_FLUSH`) or skips the
    /// connection's deflater.
    @Test(arguments: Transport.overSockets)
    func eachEventAndHeartbeatInflatesAsItArrives(over transport: Transport) async throws {
        try await withApp(over: transport, Self.configuration(sseGzip: true)) { server in
            let client = try await Self.subscribe(server, channel: "zipped")
            let head = client.responseHeaders
            #expect(head["Content-Encoding"] == "gzip", "\(head)")
            #expect(head["Vary"]?.lowercased().contains("accept-encoding") == true, "\(head)")

            try await Self.push(server, channel: "zipped", "one")
            #expect(await Self.receiveUntilInflated(client, endsWith: "data: one\n\n"), "\(Self.inflated(client))")
            try await server.admin.clock.advance(by: .seconds(15))
            #expect(await Self.receiveUntilInflated(client, endsWith: ": keep-alive\n\n"), "\(Self.inflated(client))")
            try await Self.push(server, channel: "zipped", "two")
            #expect(await Self.receiveUntilInflated(client, endsWith: "data: two\n\n"), "\(Self.inflated(client))")
            #expect(Self.inflated(client).contains(/data: one\n\n: keep-alive\n\n(id: [^\n]+\n)?data: two\n\n$/))
        }
    }

    /// Without the option a stream is sent as it is, even to a client that accepts gzip.
    @Test(arguments: Transport.overSockets)
    func withoutTheOptionTheStreamIsPlainForAClientThatAcceptsGzip(over transport: Transport) async throws {
        try await withApp(over: transport, Self.configuration(sseGzip: false)) { server in
            let client = try await Self.subscribe(server, channel: "plain")
            #expect(client.responseHeaders["Content-Encoding"] == nil, "\(client.responseHeaders)")
            try await Self.push(server, channel: "plain", "as it is")
            try await client.receive(untilContains: "data: as it is\n\n")
        }
    }
}
