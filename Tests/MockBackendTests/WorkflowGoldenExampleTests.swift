import Foundation
import MockBackend
import MockBackendTesting
import Testing

/// `GET /api/sessions` items, as SPEC 4.4 writes them (no `mode`).
private struct WorkflowSummary: Decodable {
    var id: String
    var iteration: Int
    var hat: String
    var startedAt: String

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat
        case startedAt = "started_at"
    }
}

/// `GET /api/sessions/{id}/status`.
private struct WorkflowStatus: Decodable {
    var id: String
    var iteration: Int
    var hat: String
    var mode: String
    var elapsedSecs: Double

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat, mode
        case elapsedSecs = "elapsed_secs"
    }
}

/// The data of `event: workflow`.
private struct WorkflowEvent: Decodable {
    var topic: String
    var ts: Int64
    var payload: JSONValue
}

/// The workflow examples (SPEC 4.4) decode as a client reads them, and what the server
/// sends has their fields with their JSON types.
@Suite("Golden examples: workflows")
struct WorkflowGoldenExampleTests {
    static let apiKey = "golden-key"

    @Test func examplesDecode() throws {
        let sessions = try GoldenExample.decode([WorkflowSummary].self, "workflows/sessions")
        #expect(sessions.first?.id == "s1")
        let status = try GoldenExample.decode(WorkflowStatus.self, "workflows/status")
        #expect(status.mode == "live")
        let started = try GoldenExample.decode(WorkflowEvent.self, "workflows/event-iteration-started")
        #expect(started.payload == .object(["iteration": .integer(1), "hat": .string("planner")]))
        let completed = try GoldenExample.decode(WorkflowEvent.self, "workflows/event-loop-completed")
        #expect(completed.topic == "loop.completed")
    }

    @Test func whatTheServerSendsHasTheExampleShapes() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        configuration.workflowAPIKey = Self.apiKey
        try await withRunningServer(configuration) { server in
            let key = ["X-API-Key": Self.apiKey]
            let sessions = try await server.request("GET", "/api/sessions", headers: key)
            #expect(try GoldenExample.shape(sessions) == GoldenExample.shape(of: "workflows/sessions"))
            _ = try await server.request("POST", "/__admin/clock/advance", body: #"{"ms": 12500}"#)
            let status = try await server.request("GET", "/api/sessions/s1/status", headers: key)
            #expect(try GoldenExample.shape(status) == GoldenExample.shape(of: "workflows/status"))
            let steer = String(decoding: try GoldenExample.data("workflows/steer-request"), as: UTF8.self)
            #expect(try await server.request("POST", "/api/sessions/s1/steer", headers: key, body: steer).status == 202)
            _ = try await server.request("POST", "/__admin/workflows/s1/complete")
            let stream = try await server.request("GET", "/api/sessions/s1/events", headers: key)
            let events = try (GoldenExample.events(stream.body)["workflow"] ?? []).map { data in
                (try JSONDecoder().decode(WorkflowEvent.self, from: data), data)
            }
            let started = try #require(events.first { $0.0.topic == "iteration.started" })
            #expect(
                try GoldenExample.shape(started.1) == GoldenExample.shape(of: "workflows/event-iteration-started"))
            let completed = try #require(events.last)
            #expect(completed.0.topic == "loop.completed")
            #expect(try GoldenExample.shape(completed.1) == GoldenExample.shape(of: "workflows/event-loop-completed"))
        }
    }
}
