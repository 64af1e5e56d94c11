import Foundation
import MockBackendTesting
import Testing

/// The import stream drops mid-job: the client reconnects with Last-Event-ID and misses
/// nothing, and the server's stream journal shows the reconnect.
@Suite struct ImportResumeTests {
    @Test func aDroppedImportStreamResumesFromTheLastEvent() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual  // the import moves only when the test says so
        try await withRunningServer(configuration) { server in
            let upload = try await server.api.uploadCSV("title,author\r\nDune,Frank Herbert\r\nEmma,Jane Austen\r\n")
            let stream = "imports/\(upload.jobId)"
            let url = server.baseURL.appendingPathComponent(ImportPaths.stream(jobId: upload.jobId))
            let source = EventSource(url: url, configuration: .init(policy: ReconnectionPolicy(jitter: 0)))
            source.start()
            var events = source.events.makeAsyncIterator()
            try await server.admin.clock.advance(by: .milliseconds(100))  // out of the queue
            #expect(try await events.next()?.type == "started")

            try await server.admin.streams.push(to: stream, data: nil, retry: 100)  // not the 5 s it advertised
            let feed = try await server.admin.events.subscribe()
            try await server.admin.streams.disconnect(stream)  // as a network failure: FIN mid-body
            try await feed.next(.streamConnected) { $0.string("stream") == stream && $0.string("lastEventId") == "1" }

            try await server.admin.clock.advance(by: .seconds(1))  // both rows, then the end
            #expect(try await events.next()?.type == "progress")
            #expect(try await events.next()?.type == "complete")

            let journal = try await server.admin.streams.connections(stream: stream)
            #expect(journal.map(\.lastEventId) == [nil, "1"])
            #expect(journal[1].reconnect != nil)  // the gap since the drop, and the retry advertised
            #expect(journal[1].deliveredIds == ["2", "3"])
        }
    }
}
