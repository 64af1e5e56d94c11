import Foundation
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// The gate the companion app first shipped with: a session counts as live when the list
/// says `"status": "live"`. Neither the list nor the status has such a field.
private func statusFieldGate(_ item: [String: Any]) -> Bool {
    item["status"] as? String == "live"
}

/// The JSON of a workflow route, untyped, as a client that guesses fields sees it.
private func untyped(_ server: RunningServer, _ path: String) async throws -> Any {
    let response = try await server.request(
        "GET", path, headers: ["Authorization": "Bearer \(server.app.workflowAPIKey)"])
    #expect(response.status == 200)
    return try JSONSerialization.jsonObject(with: Data(response.body))
}

private func workflowConnections(_ server: RunningServer, _ id: String) async throws -> Int {
    try await server.admin.streams.connections(stream: "workflows/\(id)").count
}

@Suite("Workflow client against the server")
struct WorkflowClientTests {
    @Test func aGateOnAStatusFieldNeverOpensTheStreamWhileTheModeGateDoes() async throws {
        try await withRunningServer { server in
            try await server.admin.workflows.create(id: "w1", iterations: 5, paceSeconds: 3600)
            let list = try await untyped(server, "/api/sessions") as? [[String: Any]] ?? []
            let item = try #require(list.first { $0["id"] as? String == "w1" })
            #expect(Set(item.keys) == ["id", "iteration", "hat", "started_at"])
            let status = try #require(try await untyped(server, "/api/sessions/w1/status") as? [String: Any])
            #expect(status["status"] == nil)
            #expect(status["mode"] as? String == "live")
            // A list item is no status: it has no `mode` to decode.
            let itemData = try JSONSerialization.data(withJSONObject: item)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(WorkflowStatus.self, from: itemData) }

            // The old gate, over the list or the status: nothing is live, no stream opens.
            #expect(list.filter(statusFieldGate).isEmpty)
            #expect(!statusFieldGate(status))
            #expect(try await workflowConnections(server, "w1") == 0)

            let client = WorkflowClient(baseURL: server.baseURL, apiKey: server.app.workflowAPIKey)
            #expect(try await client.liveSessions().map(\.id).contains("w1"))
            let stream = try #require(try await client.follow("w1"))
            stream.start()
            var first: WorkflowStreamMessage?
            for try await message in stream.messages {
                first = message
                break
            }
            guard case .event(let event) = first else {
                Issue.record("no workflow event: \(String(describing: first))")
                return
            }
            #expect(event.topic == WorkflowTopic.iterationStarted)
            #expect(try await workflowConnections(server, "w1") == 1)
            stream.stop()
        }
    }

    @Test func theStreamEndsAfterLoopCompletedWithoutReconnectingAndACompletedSessionIsNotFollowed()
        async throws
    {
        try await withRunningServer { server in
            try await server.admin.workflows.create(id: "w2", iterations: 5, paceSeconds: 3600)
            let client = WorkflowClient(baseURL: server.baseURL, apiKey: server.app.workflowAPIKey)
            let stream = try #require(
                try await client.follow("w2", policy: ReconnectionPolicy(initialDelay: .milliseconds(1), jitter: 0)))
            stream.start()
            #expect(await eventually { stream.source.state == .open })
            try await client.steer("w2", message: "focus on the parser")
            try await server.admin.workflows.complete("w2")
            var topics: [String] = []
            for try await message in stream.messages {
                if case .event(let event) = message { topics.append(event.topic) }
            }
            #expect(
                topics == [WorkflowTopic.iterationStarted, WorkflowTopic.sessionSteered, WorkflowTopic.loopCompleted])
            #expect(stream.source.state == .closed(.sessionOver(WorkflowTopic.loopCompleted)))
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await workflowConnections(server, "w2") == 1)

            #expect(try await client.status(of: "w2").mode == .complete)
            #expect(try await client.follow("w2") == nil)
            #expect(try await !client.liveSessions().map(\.id).contains("w2"))
        }
    }

    @Test func aWrongKeyAndAnUnknownSessionAreTypedErrors() async throws {
        try await withRunningServer { server in
            let wrong = WorkflowClient(baseURL: server.baseURL, apiKey: "wrong")
            await #expect(throws: WorkflowRequestError(request: "GET /api/sessions", status: 401, code: "UNAUTHORIZED"))
            {
                _ = try await wrong.sessions()
            }
            let client = WorkflowClient(baseURL: server.baseURL, apiKey: server.app.workflowAPIKey)
            await #expect(
                throws: WorkflowRequestError(
                    request: "GET /api/sessions/nope/status", status: 404, code: "SESSION_NOT_FOUND")
            ) {
                _ = try await client.follow("nope")
            }
        }
    }

    @Test func anUndecodableWorkflowEventIsKeptWithItsError() {
        let message = WorkflowStreamMessage.decode(ServerSentEvent(type: "workflow", data: #"{"topic":"x"}"#))
        guard case .undecodable(_, let error) = message else {
            Issue.record("\(message)")
            return
        }
        #expect(error.codingPath == ["ts"])
        #expect(
            WorkflowStreamMessage.decode(ServerSentEvent(type: "reset", data: ""))
                == .other(ServerSentEvent(type: "reset", data: "")))
    }
}
