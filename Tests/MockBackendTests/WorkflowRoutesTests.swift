import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

private let apiKey = "wf-test-key"
private let bearer = ["Authorization": "Bearer \(apiKey)"]
private let bearerLine = "Authorization: Bearer \(apiKey)\r\n"

/// The data of one `event: workflow`.
private struct WorkflowEventData: Decodable, Equatable {
    var topic: String
    var ts: Int64
    var payload: JSONValue
}

/// The workflow events of a stream body, with their ids.
private func workflowEvents(_ body: [UInt8]) throws -> [(id: String?, data: WorkflowEventData)] {
    var parser = SSEParser()
    return try parser.feed(body).compactMap { item -> (id: String?, data: WorkflowEventData)? in
        guard case .event(let event) = item else { return nil }
        #expect(event.type == "workflow")
        return (event.id, try JSONDecoder().decode(WorkflowEventData.self, from: Data(event.data.utf8)))
    }
}

private func json(_ response: RawResponse) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
}

private func advance(_ server: some AppUnderTest, ms: Int) async throws {
    try await server.admin.clock.advance(by: .milliseconds(ms))
}

/// A GET of a session's event stream, left open.
private func openEvents(_ server: some AppUnderTest, _ id: String, headers: String = "") async throws
    -> any StreamClient
{
    try await server.openStream("/api/sessions/\(id)/events", headerLines: bearerLine + headers)
}

@Suite("Workflow sessions")
struct WorkflowRoutesTests {
    static func manual() -> MockBackendConfiguration {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        configuration.seed = 7
        configuration.workflowAPIKey = apiKey
        return configuration
    }

    /// A session of two iterations over two hats, one step a second.
    static func createShortSession(_ server: some AppUnderTest, id: String = "w1") async throws {
        try await server.admin.workflows.create(id: id, iterations: 2, hats: ["planner", "builder"], paceSeconds: 1)
    }

    @Test func listHasNoModeAndStatusDoes() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let list = try await server.request("GET", "/api/sessions", headers: bearer)
            #expect(list.status == 200)
            #expect(list.headers["Content-Type"] == "application/json; charset=utf-8")
            let items = try #require(try JSONSerialization.jsonObject(with: Data(list.body)) as? [[String: Any]])
            #expect(items.count == 1)
            #expect(Set(items[0].keys) == ["id", "iteration", "hat", "started_at"])
            #expect(items[0]["id"] as? String == "s1")
            #expect(items[0]["iteration"] as? Int == 1)
            #expect(items[0]["hat"] as? String == "planner")
            #expect(Timestamp.parse(items[0]["started_at"] as? String ?? "") != nil)

            let status = try await server.request("GET", "/api/sessions/s1/status", headers: bearer)
            #expect(status.status == 200)
            let body = try json(status)
            #expect(Set(body.keys) == ["id", "iteration", "hat", "mode", "elapsed_secs"])
            #expect(body["mode"] as? String == "live")
            #expect(body["elapsed_secs"] as? Double == 0)
            try await advance(server, ms: 12_500)
            let later = try json(try await server.request("GET", "/api/sessions/s1/status", headers: bearer))
            #expect(later["elapsed_secs"] as? Double == 12.5)
            #expect(later["iteration"] as? Int == 2)
            #expect(later["hat"] as? String == "builder")
        }
    }

    /// Two iterations at one step a second: the events come in order with increasing ids,
    /// `ts` moves with the simulated clock, and after `loop.completed` the stream ends.
    @Test func sessionAdvancesOnTheClockCompletesAndEndsItsStream() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            try await Self.createShortSession(server)
            let stream = try await openEvents(server, "w1")
            try await stream.receive(untilContains: "retry: 5000\n")
            try await stream.receive(untilContains: "iteration.started")
            try await advance(server, ms: 1000)
            try await stream.receive(untilContains: "tool.called")
            let midway = try json(try await server.request("GET", "/api/sessions/w1/status", headers: bearer))
            #expect(midway["iteration"] as? Int == 1)
            #expect(midway["mode"] as? String == "live")
            try await advance(server, ms: 1000)
            try await stream.receive(untilContains: "hat.changed")
            try await advance(server, ms: 5000)
            let response = try await stream.readResponse()
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "text/event-stream; charset=utf-8")
            let events = try workflowEvents(response.body)
            #expect(
                events.map(\.data.topic) == [
                    "iteration.started", "tool.called", "iteration.started", "hat.changed", "tool.called",
                    "loop.completed",
                ])
            #expect(events.map(\.id) == (1...6).map { "\($0)" })
            let start = events[0].data.ts
            #expect(events.map { $0.data.ts - start } == [0, 1000, 2000, 2000, 3000, 4000])
            #expect(abs(Double(start) - Date().timeIntervalSince1970 * 1000) < 600_000)
            #expect(events[0].data.payload == .object(["iteration": .integer(1), "hat": .string("planner")]))
            #expect(events[3].data.payload == .object(["from": .string("planner"), "to": .string("builder")]))
            guard case .object(let tool) = events[1].data.payload, case .string(let name) = tool["tool"] else {
                Issue.record("tool.called has no tool: \(events[1].data.payload)")
                return
            }
            #expect(["read_file", "edit_file", "run_tests", "search_code", "shell"].contains(name))
            #expect(
                events[5].data.payload == .object(["iterations": .integer(2), "reason": .string("max_iterations")]))

            let status = try json(try await server.request("GET", "/api/sessions/w1/status", headers: bearer))
            #expect(status["mode"] as? String == "complete")
            #expect(status["iteration"] as? Int == 2)
            #expect(status["hat"] as? String == "builder")
            #expect(status["elapsed_secs"] as? Double == 4)

            // Caught up on a completed session: 204, which stops EventSource; earlier: the rest.
            let caughtUp = try await server.get(
                "/api/sessions/w1/events", headers: bearerLine + "Last-Event-ID: 6\r\n")
            #expect(caughtUp.status == 204)
            let rest = try await server.get("/api/sessions/w1/events?lastEventId=4", headers: bearerLine)
            #expect(rest.status == 200)
            #expect(try workflowEvents(rest.body).map(\.id) == ["5", "6"])
            #expect(try await server.admin.streams.list().contains { $0.name == "workflows/w1" })
        }
    }

    /// With `--seed` the tools picked repeat from run to run.
    @Test func seededSessionsRepeat() async throws {
        var runs: [[String]] = []
        var configuration = Self.manual()
        configuration.scenario = configuration.scenario.withWorkflowIterations(12)
        for _ in 0..<2 {
            let topics = try await withInMemoryApp(configuration) { server -> [String] in
                try await advance(server, ms: 200_000)
                let response = try await server.get("/api/sessions/s1/events", headers: bearerLine)
                return try workflowEvents(response.body).map { "\($0.data.topic) \($0.data.payload.text)" }
            }
            runs.append(topics)
        }
        #expect(runs[0] == runs[1])
        #expect(runs[0].last?.hasPrefix("loop.completed") == true)
        // Twelve iterations, each with a start and a tool call; hats change on all but the first.
        #expect(runs[0].filter { $0.hasPrefix("iteration.started") }.count == 12)
        #expect(runs[0].filter { $0.hasPrefix("tool.called") }.count == 12)
        #expect(runs[0].filter { $0.hasPrefix("hat.changed") }.count == 11)
    }

    @Test func pauseStopsAdvancingAndResumeContinues() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            try await advance(server, ms: 2500)
            let paused = try await server.request("POST", "/api/sessions/s1/pause", headers: bearer)
            #expect(paused.status == 202)
            #expect(try json(paused)["elapsed_secs"] as? Double == 2.5)
            let before = try await server.request("GET", "/api/sessions/s1/status", headers: bearer).text
            try await advance(server, ms: 60_000)
            #expect(try await server.request("GET", "/api/sessions/s1/status", headers: bearer).text == before)
            let again = try await server.request("POST", "/api/sessions/s1/pause", headers: bearer)
            #expect(again.status == 409)
            #expect(again.text.contains("SESSION_STATE_CONFLICT"))

            #expect(try await server.request("POST", "/api/sessions/s1/resume", headers: bearer).status == 202)
            #expect(try await server.request("POST", "/api/sessions/s1/resume", headers: bearer).status == 409)
            // The step that was 2.5 s away when it paused comes 2.5 s after the resume.
            try await advance(server, ms: 2499)
            let stream = try await openEvents(server, "s1")
            try await stream.receive(untilContains: "session.resumed")
            #expect(!String(decoding: stream.streamedBody, as: UTF8.self).contains("tool.called"))
            try await advance(server, ms: 1)
            try await stream.receive(untilContains: "tool.called")
            let events = try workflowEvents(stream.streamedBody)
            #expect(
                events.map(\.data.topic) == ["iteration.started", "session.paused", "session.resumed", "tool.called"])
            #expect(events[1].data.ts - events[0].data.ts == 2500)
            #expect(events[3].data.ts - events[2].data.ts == 2500)
            #expect(events[1].data.payload == .object(["iteration": .integer(1), "hat": .string("planner")]))
            let status = try json(try await server.request("GET", "/api/sessions/s1/status", headers: bearer))
            #expect(status["elapsed_secs"] as? Double == 5)
        }
    }

    /// On a real clock (sped up) a session runs to its end by itself, steps in order.
    @Test func realClockRunsASessionToTheEnd() async throws {
        var configuration = Self.manual()
        configuration.clock = .real(speed: 1000)
        try await withInMemoryApp(configuration) { server in
            try await server.admin.workflows.create(id: "fast", iterations: 3, paceSeconds: 1)
            let response = try await openEvents(server, "fast").readResponse()
            let events = try workflowEvents(response.body)
            #expect(events.map(\.id) == (1...events.count).map { "\($0)" })
            #expect(events.filter { $0.data.topic == "tool.called" }.count == 3)
            #expect(events.last?.data.topic == "loop.completed")
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.data.ts <= $1.data.ts })
            let status = try json(try await server.request("GET", "/api/sessions/fast/status", headers: bearer))
            #expect(status["mode"] as? String == "complete")
            #expect(status["elapsed_secs"] as? Double == 6)
        }
    }

    @Test func steerShowsUpAsAnEvent() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let stream = try await openEvents(server, "s1")
            try await stream.receive(untilContains: "iteration.started")
            let steered = try await server.request(
                "POST", "/api/sessions/s1/steer", headers: ["X-API-Key": apiKey],
                body: #"{"message":"Focus on the failing test"}"#)
            #expect(steered.status == 202)
            #expect(try json(steered)["mode"] as? String == "live")
            try await stream.receive(untilContains: "session.steered")
            let last = try #require(try workflowEvents(stream.streamedBody).last)
            #expect(
                last.data.payload
                    == .object([
                        "message": .string("Focus on the failing test"), "iteration": .integer(1),
                        "hat": .string("planner"),
                    ]))
            #expect(last.id == "2")
        }
    }

    @Test func streamsSendHeartbeats() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let stream = try await openEvents(server, "s1")
            try await stream.receive(untilContains: "iteration.started")
            try await advance(server, ms: 15_000)
            try await stream.receive(untilContains: ": keep-alive\n\n")
        }
    }

    @Test func adminCreatesPublishesAndCompletes() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let created = try await server.request("POST", "/__admin/workflows")
            #expect(created.status == 201)
            let status = try json(created)
            #expect(Set(status.keys) == ["id", "iteration", "hat", "mode", "elapsed_secs"])
            let id = try #require(status["id"] as? String)
            #expect(id.hasPrefix("wf_") && id.count == 13)
            #expect(status["mode"] as? String == "live")
            let list = try await server.request("GET", "/api/sessions", headers: bearer)
            #expect(list.text.contains(#""id":"\#(id)""#))

            let duplicate = try await server.request("POST", "/__admin/workflows", body: #"{"id":"s1"}"#)
            #expect(duplicate.status == 409)
            #expect(duplicate.text.contains("SESSION_EXISTS"))

            let published = try await server.request(
                "POST", "/__admin/workflows/\(id)/events", body: #"{"topic":"review.requested","payload":{"pr":[1,2]}}"#
            )
            #expect(published.status == 200)
            #expect(try json(published)["eventId"] as? String == "2")
            let bare = try await server.request("POST", "/__admin/workflows/\(id)/events", body: #"{"topic":"note"}"#)
            #expect(bare.status == 200)

            let completed = try await server.request("POST", "/__admin/workflows/\(id)/complete")
            #expect(completed.status == 200)
            #expect(try json(completed)["mode"] as? String == "complete")
            let events = try workflowEvents(
                try await server.get("/api/sessions/\(id)/events", headers: bearerLine).body)
            #expect(events.map(\.data.topic) == ["iteration.started", "review.requested", "note", "loop.completed"])
            #expect(events[1].data.payload == .object(["pr": .array([.integer(1), .integer(2)])]))
            #expect(events[2].data.payload == .object([:]))
            #expect(events[3].data.payload == .object(["iterations": .integer(1), "reason": .string("admin")]))

            // A completed session refuses everything that would change it.
            for (path, body) in [
                ("/__admin/workflows/\(id)/complete", "{}"), ("/__admin/workflows/\(id)/events", #"{"topic":"x"}"#),
                ("/api/sessions/\(id)/pause", "{}"), ("/api/sessions/\(id)/resume", "{}"),
                ("/api/sessions/\(id)/steer", #"{"message":"m"}"#),
            ] {
                let response = try await server.request("POST", path, headers: bearer, body: body)
                #expect(response.status == 409, "\(path)")
                #expect(response.text.contains("SESSION_STATE_CONFLICT"), "\(path)")
            }
            let admin = try await server.request("GET", "/__admin/workflows")
            #expect(admin.text.contains(#""paused":false"#))
            #expect(admin.text.contains(#""stream":"workflows/\#(id)""#))
        }
    }

    /// A payload left out or null is `{}` (an optional request field given as null counts as
    /// left out); a known topic's payload is held to that topic's fields.
    @Test func adminPayloadIsAnObjectAndFitsItsTopic() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let null = try await server.request(
                "POST", "/__admin/workflows/s1/events", body: #"{"topic":"note","payload":null}"#)
            #expect(null.status == 200)
            #expect((try json(null)["payload"] as? [String: Any])?.isEmpty == true)
            let call = try await server.request(
                "POST", "/__admin/workflows/s1/events",
                body: #"{"topic":"tool.called","payload":{"iteration":1,"hat":"planner","tool":"shell"}}"#)
            #expect(call.status == 200)
            let stream = try await openEvents(server, "s1", headers: "Last-Event-ID: 1\r\n")
            try await stream.receive(untilContains: #""tool":"shell""#)
            let events = try workflowEvents(stream.streamedBody)
            #expect(
                events.map(\.data.payload) == [
                    .object([:]),
                    .object(["iteration": .integer(1), "hat": .string("planner"), "tool": .string("shell")]),
                ])
        }
    }

    @Test func resetReturnsToTheScenario() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            try await Self.createShortSession(server)
            try await advance(server, ms: 30_000)
            try await server.admin.workflows.complete("s1")
            try await server.admin.reset()
            #expect(try await server.request("GET", "/api/sessions/w1/status", headers: bearer).status == 404)
            let status = try json(try await server.request("GET", "/api/sessions/s1/status", headers: bearer))
            #expect(status["mode"] as? String == "live")
            #expect(status["iteration"] as? Int == 1)
            #expect(status["elapsed_secs"] as? Double == 0)
            let stream = try await openEvents(server, "s1")
            try await advance(server, ms: 5000)
            try await stream.receive(untilContains: "tool.called")
            #expect(try workflowEvents(stream.streamedBody).map(\.id) == ["1", "2"])
        }
    }

    @Test func apiKeyIsRequiredOnEveryRouteInEitherHeader() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let routes = [
                ("GET", "/api/sessions"), ("GET", "/api/sessions/s1/status"), ("GET", "/api/sessions/s1/events"),
                ("POST", "/api/sessions/s1/pause"), ("POST", "/api/sessions/s1/resume"),
                ("POST", "/api/sessions/s1/steer"),
            ]
            for (method, path) in routes {
                let missing = try await server.request(method, path)
                #expect(missing.status == 401, "\(method) \(path)")
                #expect(missing.headers["Content-Type"] == "application/problem+json")
                #expect(missing.headers["WWW-Authenticate"] == "Bearer")
                #expect(missing.text.contains(#""code":"UNAUTHORIZED""#))
                for headers in [
                    ["Authorization": "Bearer nope"], ["X-API-Key": "nope"], ["Authorization": "Basic \(apiKey)"],
                    ["Authorization": "Bearer \(apiKey)x"], ["X-API-Key": String(apiKey.dropLast())],
                ] {
                    let wrong = try await server.request(method, path, headers: headers)
                    #expect(wrong.status == 401, "\(method) \(path) \(headers)")
                    #expect(wrong.headers["WWW-Authenticate"] == #"Bearer error="invalid_token""#)
                }
            }
            for headers in [bearer, ["X-API-Key": apiKey], ["Authorization": "bearer \(apiKey)"]] {
                #expect(try await server.request("GET", "/api/sessions", headers: headers).status == 200)
            }
            // Admin routes need no API key.
            #expect(try await server.request("GET", "/__admin/workflows").status == 200)
        }
    }

    @Test func generatedKeyWhenNoneIsConfigured() async throws {
        var configuration = Self.manual()
        configuration.workflowAPIKey = nil
        try await withInMemoryApp(configuration) { server in
            let key = server.app.workflowAPIKey
            #expect(key.count == 36)
            let accepted = try await server.request("GET", "/api/sessions", headers: ["X-API-Key": key])
            #expect(accepted.status == 200)
            let refused = try await server.request("GET", "/api/sessions", headers: bearer)
            #expect(refused.status == 401)
        }
    }

    @Test func unknownSessionIs404Everywhere() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            for (method, path) in [
                ("GET", "/api/sessions/nope/status"), ("GET", "/api/sessions/nope/events"),
                ("POST", "/api/sessions/nope/pause"), ("POST", "/api/sessions/nope/resume"),
                ("POST", "/api/sessions/nope/steer"), ("POST", "/__admin/workflows/nope/events"),
                ("POST", "/__admin/workflows/nope/complete"),
            ] {
                let response = try await server.request(method, path, headers: bearer)
                #expect(response.status == 404, "\(method) \(path)")
                #expect(response.headers["Content-Type"] == "application/problem+json")
                #expect(response.text.contains(#""code":"SESSION_NOT_FOUND""#), "\(method) \(path)")
            }
        }
    }

    @Test(
        "refuses bad bodies, naming the field",
        arguments: [
            ("/api/sessions/s1/steer", "", "'message' is required"),
            ("/api/sessions/s1/steer", #"{"message":42}"#, "'message' must be a string"),
            ("/api/sessions/s1/steer", #"{"message":null}"#, "'message' must be a string, not null"),
            ("/api/sessions/s1/steer", #"{"message":"  "}"#, "'message' must not be empty"),
            ("/api/sessions/s1/steer", "{not json", "not valid JSON"),
            ("/__admin/workflows", #"{"iterations":"many"}"#, "'iterations' must be an integer"),
            ("/__admin/workflows", #"{"iterations":0}"#, "'iterations' must be from 1"),
            ("/__admin/workflows", #"{"hats":[]}"#, "'hats' must hold"),
            ("/__admin/workflows", #"{"hats":["planner",""]}"#, "'hats.[1]' must be"),
            ("/__admin/workflows", #"{"hats":["planner",3]}"#, "'hats.[1]' must be a string"),
            ("/__admin/workflows", #"{"paceSeconds":0}"#, "'paceSeconds' must be from"),
            ("/__admin/workflows", #"{"paceSeconds":"fast"}"#, "'paceSeconds' must be a number"),
            ("/__admin/workflows", #"{"id":"has space"}"#, "'id' must be"),
            ("/__admin/workflows", #"{"id":".."}"#, "'id' must be"),
            ("/__admin/workflows", #"{"id":7}"#, "'id' must be a string"),
            ("/__admin/workflows/s1/events", #"{"payload":{}}"#, "'topic' is required"),
            ("/__admin/workflows/s1/events", #"{"topic":5}"#, "'topic' must be a string"),
            ("/__admin/workflows/s1/events", #"{"topic":""}"#, "'topic' must be a non-empty"),
            ("/__admin/workflows/s1/events", #"{"topic":"note","payload":5}"#, "'payload' must be a JSON object"),
            ("/__admin/workflows/s1/events", #"{"topic":"note","payload":[1]}"#, "'payload' must be a JSON object"),
            (
                "/__admin/workflows/s1/events", #"{"topic":"tool.called","payload":{"iteration":1,"hat":"planner"}}"#,
                "not what topic 'tool.called' carries: Field 'tool' is required"
            ),
        ])
    func refusesBadBodies(path: String, body: String, detail: String) async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let response = try await server.request("POST", path, headers: bearer, body: body)
            #expect(response.status == 400)
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.text.contains(#""code":"INVALID_BODY""#))
            #expect(response.text.contains(detail), "\(response.text)")
        }
    }
}
