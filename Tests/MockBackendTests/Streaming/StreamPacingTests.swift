import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

@Suite("Stream floods at the readers' pace, broadcasts and delivery counts")
struct StreamPacingTests {
    /// More bytes than the kernel's socket buffers and the unsent bound together: published
    /// without pacing, the reader would be dropped as slow. Few large events rather than many
    /// small ones, so the floods do not hold the machine up for the other tests.
    @Test func aFloodGoesAtItsReadersPaceAndArrivesWholeAndInOrder() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.http.maxUnsentStreamBytes = 64 * 1024
        // The reader is never left behind here, however long a busy machine holds up the
        // test's task: this test is about the pace, not about giving up on a reader.
        configuration.floodPatience = .seconds(600)
        try await withRunningServer(configuration) { server in
            let stream = server.app.streams.stream(named: "channels/paced")
            let reader = try StreamReader(
                server, "/sse/channels/paced", clientID: "reader", receiveBufferSize: 16 * 1024)
            #expect(await eventually { stream.subscriberCount == 1 })
            let payload = String(repeating: "p", count: 2000)
            let admin = try postRequest(
                server, "/__admin/streams/channels/paced/events", #"{"data":"\#(payload)","count":600}"#)
            try await reader.read(until: "600", timeout: .seconds(60))
            #expect(reader.ids == (1...600).map(String.init))
            let answer = try await admin.readResponse(timeout: .seconds(30))
            #expect(answer.status == 200)
            #expect(answer.text.contains(#""id":"600""#))
            #expect(answer.text.contains(#""delivered":1"#))
            let record = try #require(server.app.streams.journal.snapshots(stream: "channels/paced").first)
            #expect(record.endReason == nil)
            #expect(record.deliveredCount == 600)
            #expect(record.deliveredIds == (1...StreamConnectionRecordLimit.ids).map(String.init))
        }
    }

    /// Subscribers joining while events are published (on both event loops) get the
    /// replay and then every live event, none twice and none missing.
    @Test func subscribersJoiningDuringPublishingGetEveryEventOnceInOrder() async throws {
        try await withRunningServer { server in
            let stream = server.app.streams.stream(named: "channels/busy", settings: .init(retention: 5000))
            let publisher = Thread {
                for index in 1...1500 {
                    stream.publish(ServerSentEvent(data: "event \(index)"))
                    if index % 100 == 0 { usleep(2000) }
                }
            }
            publisher.start()
            var readers: [StreamReader] = []
            for index in 0..<8 {
                readers.append(try StreamReader(server, "/sse/channels/busy", clientID: "joiner-\(index)"))
                try await Task.sleep(for: .milliseconds(5))
            }
            for reader in readers {
                try await reader.read(until: "1500")
                #expect(reader.ids == (1...1500).map(String.init))
            }
        }
    }

    @Test func theJournalCountsEveryDeliveryAndKeepsTheFirstIDsInOrder() async throws {
        try await withRunningServer { server in
            let stream = server.app.streams.stream(named: "channels/counted", settings: .init(retention: 10))
            let reader = try StreamReader(server, "/sse/channels/counted", clientID: "counted")
            #expect(await eventually { stream.subscriberCount == 1 })
            for index in 1...3 { stream.publish(ServerSentEvent(data: "\(index)")) }
            let connection = try #require(stream.snapshot.subscribers.first?.connection)
            #expect(stream.send(ServerSentEvent(data: "alone", id: "x"), toConnection: connection))
            for index in 4...250 { stream.publish(ServerSentEvent(data: "\(index)")) }
            try await reader.read(until: "250")
            let expected = ["1", "2", "3", "x"] + (4...250).map(String.init)
            #expect(reader.ids == expected)

            // While it is connected: counted up to now on every read.
            #expect(stream.snapshot.subscribers.first?.deliveredCount == 251)
            let live = try #require(server.app.streams.journal.snapshots(stream: "channels/counted").first)
            #expect(live.deliveredCount == 251)
            #expect(live.deliveredIds == Array(expected.prefix(StreamConnectionRecordLimit.ids)))
            // An event counts once it has left for the socket, on the connection's loop.
            stream.publish(ServerSentEvent(data: "251"))
            #expect(
                await eventually {
                    server.app.streams.journal.snapshots(stream: "channels/counted").first?.deliveredCount == 252
                })

            // After it has gone, the count stays; later events are not counted.
            reader.client.close()
            #expect(
                await eventually {
                    server.app.streams.journal.snapshots(stream: "channels/counted").first?.endedAt != nil
                })
            stream.publish(ServerSentEvent(data: "252"))
            let record = try #require(server.app.streams.journal.snapshots(stream: "channels/counted").first)
            #expect(record.deliveredCount == 252)
            #expect(record.deliveredIds.count == StreamConnectionRecordLimit.ids)

            // A reconnect replays the retained events: counted and noted as well.
            let again = try StreamReader(server, "/sse/channels/counted", clientID: "counted", lastEventID: "245")
            try await again.read(until: "252")
            #expect(again.ids == (246...252).map(String.init))
            #expect(await eventually { stream.snapshot.subscribers.first?.deliveredCount == 7 })
            let second = try #require(server.app.streams.journal.snapshots(stream: "channels/counted").last)
            #expect(second.deliveredIds == (246...252).map(String.init))
        }
    }

    /// An event published right after an admin disconnect is not counted for the dropped
    /// connection, although the connection closes a moment later on its own loop.
    @Test func eventsAfterAnAdminDisconnectAreNotCountedForTheDroppedConnection() async throws {
        try await withRunningServer { server in
            let stream = server.app.streams.stream(named: "channels/dropped")
            let reader = try StreamReader(server, "/sse/channels/dropped", clientID: "dropped")
            #expect(await eventually { stream.subscriberCount == 1 })
            for index in 1...3 { stream.publish(ServerSentEvent(data: "\(index)")) }
            try await reader.read(until: "3")
            #expect(stream.disconnect() == 1)
            for index in 4...6 { stream.publish(ServerSentEvent(data: "\(index)")) }
            try? await reader.readToClose()
            #expect(reader.ids == ["1", "2", "3"])
            #expect(
                await eventually {
                    server.app.streams.journal.snapshots(stream: "channels/dropped").first?.endedAt != nil
                })
            let record = try #require(server.app.streams.journal.snapshots(stream: "channels/dropped").first)
            #expect(record.deliveredCount == 3)
            #expect(record.deliveredIds == ["1", "2", "3"])
        }
    }
}

/// The journal's per-connection id limit, as the tests expect it.
private enum StreamConnectionRecordLimit {
    static let ids = 200
}
