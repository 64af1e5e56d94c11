import MockBackend
import MockBackendTesting
import TestSupport
import Testing

/// An HTTP/2 connection without a stream for the idle timeout is ended with GOAWAY
/// NO_ERROR (RFC 9113 §6.8); one with a stream open is never idle, however long it lasts.
@Suite("HTTP/2 idle timeout")
struct HTTP2IdleTimeoutTests {
    @Test(arguments: Transport.overSockets.filter { $0 != .http11 })
    func goAwayComesOnlyOnceNoStreamIsOpenForTheTimeout(over transport: Transport) async throws {
        let timeout = TestTiming.scaled(.seconds(1))
        var configuration = MockBackendConfiguration.forTesting()
        configuration.http.idleTimeout = timeout
        try await withApp(over: transport, configuration) { server in
            let http2 = try #require(server as? HTTP2App)
            let stream = try await server.openStream("/sse/channels/long")
            try await Task.sleep(for: timeout * 2)
            #expect(http2.goAwayCode == nil, "GOAWAY while a stream was open")
            stream.close()
            let closedAt = ContinuousClock.now
            #expect(await eventually(timeout: .seconds(10)) { http2.goAwayCode != nil })
            #expect(http2.goAwayCode == 0)
            #expect(ContinuousClock.now - closedAt >= timeout - .milliseconds(50))
        }
    }
}
