import Foundation
import MockBackend
import MockBackendClient
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// "The job fails mid-stream and the client falls back to polling", built from mapping files
/// alone (`--mappings DIR`): a resumable event stream that is reset after its second event,
/// and a status endpoint whose answer a scenario turns to `failed` once the stream has been
/// served. The client library reconnects with Last-Event-ID, gets nothing more, backs off,
/// hands over to polling, and the poll finds the failure.
@Suite("A job that fails mid-stream, from mapping files")
struct JobFailsMidStreamTests {
    static let files = [
        "job-events.json": #"""
        {"scenarioName": "job 9", "newScenarioState": "streamed",
         "request": {"method": "GET", "urlPath": "/jobs/9/events"},
         "response": {"sse": {"resumable": true, "end": "rst", "events": [
           {"id": "1", "event": "progress", "data": {"status": "queued"}},
           {"id": "2", "event": "progress", "data": {"status": "running", "pct": 40}, "delayMs": 20}]}}}
        """#,
        "job-status-running.json": #"""
        {"scenarioName": "job 9", "requiredScenarioState": "Started",
         "request": {"method": "GET", "urlPath": "/jobs/9/status"}, "response": {"jsonBody": {"status": "running"}}}
        """#,
        "job-status-failed.json": #"""
        {"scenarioName": "job 9", "requiredScenarioState": "streamed",
         "request": {"method": "GET", "urlPath": "/jobs/9/status"},
         "response": {"jsonBody": {"status": "failed", "error": "TRANSCODE_FAILED"}}}
        """#,
    ]

    @Test func theClientFallsBackToPollingAndFindsTheFailure() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("job-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, text) in Self.files {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        var configuration = MockBackendConfiguration.forTesting()
        configuration.mappingsDirectory = directory.path
        try await withRunningServer(configuration) { server in
            #expect(try await server.request("GET", "/jobs/9/status").text == #"{"status":"running"}"#)
            let polledFrom = LockedValue<[String]>([])
            let source = EventSource(
                url: try #require(URL(string: "\(server.baseURL)/jobs/9/events")),
                configuration: .init(
                    policy: ReconnectionPolicy(initialDelay: .milliseconds(20), maxAttempts: 2, jitter: 0),
                    pollingFallback: { lastEventID in polledFrom.withLock { $0.append(lastEventID) } }))
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually(timeout: .seconds(20)) { collected.ended.current })
            source.stop()
            // Both events once: each reconnect resumed after the last id and got nothing.
            #expect(collected.data == [#"{"status":"queued"}"#, #"{"pct":40,"status":"running"}"#])
            #expect(polledFrom.current == ["2"])
            #expect(source.state == .closed(.pollingFinished))
            let status = try await server.request("GET", "/jobs/9/status")
            #expect(status.text == #"{"error":"TRANSCODE_FAILED","status":"failed"}"#)
            let reconnects = try await server.admin.requests.list(method: "GET", path: "/jobs/9/events")
            #expect(reconnects.count == 3)
            // Newest first: every connection but the first resumed after id 2.
            #expect(
                reconnects.dropLast().allSatisfy { request in
                    request.headers.first { $0.key.lowercased() == "last-event-id" }?.value == "2"
                })
        }
    }
}
