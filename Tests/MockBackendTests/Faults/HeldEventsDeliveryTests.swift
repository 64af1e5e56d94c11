import Foundation
import MockBackend
import MockBackendSupport
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// Events a fault holds back or throws away are not counted as delivered: the stream
/// journal and the admin feed say what the client could have read, over real sockets.
@Suite("Held events are not delivered")
struct HeldEventsDeliveryTests {
    /// A channel with `fault` on it, six events published to one reader; what the journal
    /// says the reader got once `read` ids have arrived.
    private func journal(
        fault: String, read expected: [String], end: (RunningServer) async throws -> Void = { _ in }
    ) async throws -> StreamConnectionSnapshot? {
        try await withRunningServer { server in
            let added = try await server.request(
                "POST", "/__admin/faults", body: #"{"match":{"path":"/sse/channels/held"},"fault":\#(fault)}"#)
            #expect(added.status == 201)
            let client = try server.connect()
            try client.send("GET /sse/channels/held HTTP/1.1\r\nHost: t\r\n\r\n")
            try await client.receive(untilContains: "\r\n\r\n")
            let stream = server.app.streams.stream(named: "channels/held")
            #expect(await eventually { stream.subscriberCount == 1 })
            for index in 1...6 { stream.publish(ServerSentEvent(data: "e\(index)")) }
            if let last = expected.last { try await client.receive(untilContains: "id: \(last)\n") }
            // Time for anything held to have gone out, were it going to.
            try await Task.sleep(for: .milliseconds(200))
            #expect(sseEvents(client.streamedBody).compactMap(\.id) == expected)
            try await end(server)
            return server.app.streams.journal.snapshots(stream: "channels/held").first
        }
    }

    @Test func aStallCountsOnlyWhatWentBeforeIt() async throws {
        let record = try await journal(fault: #"{"kind":"stall","afterEvents":2}"#, read: ["1", "2"])
        #expect(record?.deliveredCount == 2)
        #expect(record?.deliveredIds == ["1", "2"])
    }

    @Test func aBlackholeCountsOnlyWhatWentBeforeIt() async throws {
        let record = try await journal(fault: #"{"kind":"blackhole","afterEvents":2}"#, read: ["1", "2"])
        #expect(record?.deliveredCount == 2)
        #expect(record?.deliveredIds == ["1", "2"])
    }

    @Test func muteCountsNothingItThrewAway() async throws {
        let record = try await journal(fault: #"{"kind":"mute"}"#, read: [])
        #expect(record?.deliveredCount == 0)
        #expect(record?.deliveredIds == [])
    }

    /// The admin feed's `stream.disconnected` says the same when the connection ends.
    @Test func theFeedCountsWhatWentBeforeTheStallWhenTheConnectionEnds() async throws {
        let feedCount = LockedValue<JSONValue?>(nil)
        _ = try await journal(fault: #"{"kind":"stall","afterEvents":3}"#, read: ["1", "2", "3"]) { server in
            let events = try await server.admin.events.subscribe()
            _ = try await server.request("POST", "/__admin/streams/channels/held/disconnect", body: "{}")
            let disconnected = try await events.next(.streamDisconnected)
            feedCount.withLock { $0 = disconnected.fields["delivered"] }
        }
        #expect(feedCount.current == .integer(3))
    }
}
