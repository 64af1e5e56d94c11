import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import TestSupport
import Testing

/// The workflow examples decode into the `MockBackendAPI` wire types and round-trip
/// through them, one event example per topic the simulation publishes; what the server
/// answers and streams decodes into the same types and has the examples' fields with their
/// JSON types. The client side reads the same files
/// (`MockBackendClientTests/GoldenExampleClientTests.swift`).
@Suite("Golden examples: workflows")
struct WorkflowGoldenExampleTests {
    static let apiKey = "golden-key"

    /// `workflows/event-tool-called` for `tool.called`.
    static func eventExample(_ topic: String) -> String {
        "workflows/event-" + topic.replacingOccurrences(of: ".", with: "-")
    }

    @Test func examplesRoundTripThroughTheWireTypes() throws {
        let sessions = try GoldenExample.roundTrip([WorkflowSummary].self, "workflows/sessions")
        #expect(sessions.first?.id == "s1")
        let status = try GoldenExample.roundTrip(WorkflowStatus.self, "workflows/status")
        #expect(status.mode == .live && status.isLive)
        for topic in WorkflowTopic.all {
            let event = try GoldenExample.roundTrip(WorkflowEvent.self, Self.eventExample(topic))
            #expect(event.topic == topic)
            let payload = try event.typedPayload()
            if case .other = payload { Issue.record("\(topic) is not typed") }
        }
        let started = try GoldenExample.decode(WorkflowEvent.self, Self.eventExample(WorkflowTopic.iterationStarted))
        #expect(try started.typedPayload() == .iteration(WorkflowIteration(iteration: 1, hat: "planner")))
        let completed = try GoldenExample.decode(WorkflowEvent.self, Self.eventExample(WorkflowTopic.loopCompleted))
        #expect(
            try completed.typedPayload()
                == .loopCompletion(WorkflowLoopCompletion(iterations: 12, reason: WorkflowLoopCompletion.maxIterations))
        )
    }

    /// The list has no `mode`, and the types say so: a list item is not a status, and a
    /// summary has no `mode` to read. A client that wants the mode has to fetch the status.
    @Test func theListHasNoModeAndDoesNotDecodeAsAStatus() throws {
        let list = try GoldenExample.data("workflows/sessions")
        #expect(try GoldenExample.keys(list) == ["id", "iteration", "hat", "started_at"])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([WorkflowStatus].self, from: list) }
        let summary = try #require(try JSONDecoder().decode([WorkflowSummary].self, from: list).first)
        #expect(!Mirror(reflecting: summary).children.contains { $0.label == "mode" })
        #expect(try GoldenExample.keys(try JSONEncoder().encode(summary)) == ["id", "iteration", "hat", "started_at"])
        #expect(try GoldenExample.keys(GoldenExample.data("workflows/status")).contains("mode"))
    }

    @Test func whatTheServerSendsIsTheWireTypesInTheExampleShapes() async throws {
        var configuration = GoldenExample.configuration()
        configuration.workflowAPIKey = Self.apiKey
        try await withInMemoryApp(configuration) { server in
            let key = ["X-API-Key": Self.apiKey]
            let sessions = try await server.request("GET", "/" + WorkflowPaths.sessions, headers: key)
            #expect(try GoldenExample.shape(sessions) == GoldenExample.shape(of: "workflows/sessions"))
            #expect(try JSONDecoder().decode([WorkflowSummary].self, from: Data(sessions.body)).map(\.id) == ["s1"])
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode([WorkflowStatus].self, from: Data(sessions.body))
            }
            try await server.admin.clock.advance(by: .milliseconds(12500))
            let status = try await server.request("GET", "/" + WorkflowPaths.status(id: "s1"), headers: key)
            #expect(try GoldenExample.shape(status) == GoldenExample.shape(of: "workflows/status"))
            #expect(try JSONDecoder().decode(WorkflowStatus.self, from: Data(status.body)).iteration == 2)
            let steer = String(decoding: try GoldenExample.data("workflows/steer-request"), as: UTF8.self)
            for (path, body) in [
                (WorkflowPaths.pause(id: "s1"), "{}"), (WorkflowPaths.resume(id: "s1"), "{}"),
                (WorkflowPaths.steer(id: "s1"), steer),
            ] {
                let accepted = try await server.request("POST", "/" + path, headers: key, body: body)
                #expect(accepted.status == 202, "\(path)")
                #expect(try JSONDecoder().decode(WorkflowStatus.self, from: Data(accepted.body)).mode == .live)
            }
            try await server.admin.workflows.complete("s1")
            let stream = try await server.request("GET", "/" + WorkflowPaths.events(id: "s1"), headers: key)
            let frames = GoldenExample.events(stream.body)
            #expect(Set(frames.keys) == [try #require(WorkflowEvent.eventType)])
            let events = try (frames[WorkflowEvent.eventType ?? ""] ?? []).map { data in
                (try JSONDecoder().decode(WorkflowEvent.self, from: data), data)
            }
            for topic in WorkflowTopic.all {
                let (event, data) = try #require(events.first { $0.0.topic == topic }, "no \(topic) event")
                _ = try event.typedPayload()
                #expect(try GoldenExample.shape(data) == GoldenExample.shape(of: Self.eventExample(topic)), "\(topic)")
            }
            #expect(events.last?.0.topic == WorkflowTopic.loopCompleted)
        }
    }
}
