import MockBackend
import MockBackendTesting
import TestSupport
import Testing

/// The server counts the HTTP/2 streams open on all connections, as it counts connections:
/// a fan-out over a few h2 connections weighs what it would over HTTP/1.1 when the server
/// decides to hand memory back (`MemoryTrimPolicy`).
@Suite("HTTP/2 stream count")
struct HTTP2StreamCountTests {
    @Test(arguments: Transport.overSockets.filter { $0 != .http11 })
    func streamsAreCountedWhileOpenWhateverEndsThem(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let http2 = try #require(server as? HTTP2App)
            // h2 is counted by the TLS listener's server, h2c by the plain one's.
            let app = server.app
            let openStreams = { (transport == .h2 ? app.tlsStatistics : app.statistics)?.openHTTP2Streams }
            var streams: [any StreamClient] = []
            for _ in 0..<3 { streams.append(try await server.openStream("/sse/channels/counted")) }
            #expect(await eventually { openStreams() == 3 })
            // A stream the client resets, and one the server ends.
            streams[0].close()
            try await server.admin.streams.disconnect("channels/counted", mode: .graceful)
            #expect(await eventually { openStreams() == 0 })
            // Streams open when their connection goes.
            for _ in 0..<2 { streams.append(try await server.openStream("/sse/channels/again")) }
            #expect(await eventually { openStreams() == 2 })
            http2.close()
            #expect(await eventually { openStreams() == 0 })
        }
    }
}
