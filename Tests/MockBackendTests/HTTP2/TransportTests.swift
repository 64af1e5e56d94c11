import Foundation
import MockBackend
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// `withApp(over:)` reaches the server in the protocol it names, so the suites that take
/// `Transport` really run over each; and over h2 the streams of a test share a connection.
@Suite("Transports of the parameterised suites")
struct TransportTests {
    @Test(arguments: Transport.overSockets)
    func theJournalNamesEachTransportsProtocol(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            #expect(try await server.request("GET", "/health").status == 200)
            let journal = try await server.admin.requests.list(path: "/health")
            let expected: [Transport: String] = [.http11: "http/1.1", .h2: "h2", .h2c: "h2c"]
            #expect(journal.map(\.protocol) == [expected[transport]])
            #expect((journal.first?.streamId != nil) == (transport != .http11))
        }
    }

    /// A closed stream is one RST_STREAM on a shared connection: the others go on.
    @Test(arguments: Transport.overSockets.filter { $0 != .http11 })
    func closingOneStreamLeavesTheOthersOnTheConnection(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let leaving = try await server.openStream("/sse/channels/shared")
            let staying = try await server.openStream("/sse/channels/shared")
            let channel = server.app.streams.stream(named: "channels/shared")
            #expect(await eventually { channel.subscriberCount == 2 })
            leaving.close()
            #expect(await eventually { channel.subscriberCount == 1 })
            channel.publish(ServerSentEvent(data: "still here"))
            try await staying.receive(untilContains: "data: still here")
            let journal = try await server.admin.requests.list(path: "/sse/channels/shared")
            #expect(Set(journal.compactMap(\.http2Connection)).count == 1, "\(journal)")
        }
    }
}
