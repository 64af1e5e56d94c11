import Foundation
import MockBackend
import MockBackendTesting
import TestSupport
import Testing

/// A `max_concurrent_streams` rule acts when an HTTP/2 connection starts, not on a
/// request: the live feed tells of it as it fires, with the connection it acted on.
@Suite("max_concurrent_streams on the live feed")
struct MaxConcurrentStreamsFeedTests {
    @Test(arguments: Transport.overSockets.filter { $0 != .http11 })
    func theFeedShowsTheConnectionItActedOn(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let plain = try #require((server as? HTTP2App)?.server)
            let feed = try await plain.openStream("/__admin/events")
            try await server.admin.faults.add(.maxConcurrentStreams(2), times: 1)
            // The first request opens the test's h2 connection, which announces the limit.
            #expect(try await server.request("GET", "/health").status == 200)
            try await feed.receive(untilContains: #""kind":"max_concurrent_streams""#)
            let fired = sseEvents(feed.streamedBody).first { $0.type == "fault.fired" }
            let fields = try #require(
                fired.flatMap { try? JSONSerialization.jsonObject(with: Data($0.data.utf8)) as? [String: Any] })
            #expect(fields["method"] as? String == "PRI")
            let journal = try await server.admin.requests.list(path: "/health")
            #expect((fields["connection"] as? NSNumber)?.uint64Value == journal.first?.http2Connection, "\(fields)")
            #expect(try await server.admin.faults.list().map(\.fired) == [1])
        }
    }
}
