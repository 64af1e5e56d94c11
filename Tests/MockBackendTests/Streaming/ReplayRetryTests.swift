import Foundation
import MockBackend
import MockBackendAPI
import ServerSentEvents
import TestSupport
import Testing

/// A reconnect's `retry:` rides in the block of the first replayed event: no lone `retry:`
/// block, then the event that set it carrying it again. With nothing to replay it goes
/// alone, before any live event.
@Suite("The retry field on a replay")
struct ReplayRetryTests {
    /// A channel with three events, the second pushed with `retry: 5000`.
    private func channel() throws -> InMemoryApp {
        let app = try InMemoryApp.manual()
        _ = app.answer("GET", "/sse/channels/retry")
        for body in [#"{"data":"one"}"#, #"{"data":"slow down","retry":5000}"#, #"{"data":"three"}"#] {
            #expect(app.answer("POST", "/__admin/streams/channels/retry/events", body: body).status == 200)
        }
        return app
    }

    private func reconnect(_ app: InMemoryApp, after id: String) throws -> String {
        try #require(app.answer("GET", "/sse/channels/retry", headers: ["Last-Event-ID": id]).stream).text
    }

    private func count(_ text: String, _ part: String) -> Int {
        text.components(separatedBy: part).count - 1
    }

    @Test func aReplayThroughTheEventThatSetItSendsItOnce() throws {
        let app = try channel()
        let text = try reconnect(app, after: "1")
        #expect(count(text, "retry: 5000") == 1, "\(text)")
        #expect(!text.contains("retry: 5000\n\n"), "\(text)")
        #expect(text.hasPrefix("retry: 5000\nid: 2\ndata: slow down\n\n"), "\(text)")
    }

    @Test func aReplayAfterItCarriesItInTheFirstEvent() throws {
        let app = try channel()
        let text = try reconnect(app, after: "2")
        #expect(text == "retry: 5000\nid: 3\ndata: three\n\n", "\(text)")
        var parser = SSEParser()
        let outputs = parser.feed(Array(text.utf8))
        #expect(outputs.contains(.retry(5000)))
        #expect(outputs.contains { if case .event(let event) = $0 { event.data == "three" } else { false } })
    }

    /// Nothing to replay: the retry goes alone, as the first thing after the greeting.
    @Test func withNothingToReplayItGoesAlone() throws {
        let app = try InMemoryApp.manual()
        let job = try app.uploadCSV(rows: 3)
        let stream = try #require(app.answer("GET", "/" + ImportPaths.stream(jobId: job)).stream)
        #expect(stream.text == ": connection established\n\nretry: 5000\n\n")
        let caughtUp = try #require(app.answer("GET", "/sse/channels/empty").stream)
        #expect(caughtUp.text.isEmpty)
    }
}
