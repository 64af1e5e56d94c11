import Foundation
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// Whether every connection of `stream` in the server's journal (there is at least one)
/// was ended by the client, within 2 s.
private func closedByTheClient(_ server: RunningServer, stream: String) async throws -> Bool {
    try await eventually(timeout: .seconds(2)) {
        let connections = try await server.admin.streams.connections(stream: stream)
        return !connections.isEmpty && connections.allSatisfy { $0.endReason == "client_closed" }
    }
}

/// Reads `messages` to the end in the background; the reader holds the stream of messages
/// only, never the object that vends it.
private final class Reader: Sendable {
    let ended = LockedValue(false)
    let task: Task<Void, Never>

    init<Element: Sendable>(_ messages: AsyncThrowingStream<Element, any Error>) {
        let ended = ended
        task = Task {
            do {
                for try await _ in messages {}
            } catch {}
            ended.withLock { $0 = true }
        }
    }
}

/// Each stream the client vends ends its connection when its reader goes away or when the
/// app lets go of it: a dismissed screen leaves no connection open.
@Suite("Streams end with their reader or their release")
struct StreamLifetimeTests {
    private let policy = ReconnectionPolicy(initialDelay: .milliseconds(20), maxAttempts: 3, jitter: 0)

    @Test func cancellingTheReaderOfAUserInfoStreamClosesItsConnection() async throws {
        try await withRunningServer { server in
            let login = try await server.api.login()
            let stream = server.api.userInfoStream(for: login, policy: policy)
            let reader = Reader(stream.messages)
            stream.start()
            #expect(await userInfoSubscribers(server, 1))
            reader.task.cancel()
            #expect(try await closedByTheClient(server, stream: "userinfo/\(login.userId)"))
            // Closed for good: a stopped source never reconnects.
            #expect(stream.source?.state == .closed(.stopped))
            #expect(try await userInfoConnections(server).count == 1)
            stream.stop()
        }
    }

    @Test func releasingAStartedUserInfoStreamClosesItsConnection() async throws {
        try await withRunningServer { server in
            let login = try await server.api.login()
            var stream: UserInfoStream? = server.api.userInfoStream(for: login, policy: policy)
            weak let released = stream
            let reader = try Reader(#require(stream).messages)
            stream?.start()
            #expect(await userInfoSubscribers(server, 1))
            stream = nil
            #expect(released == nil)
            #expect(try await closedByTheClient(server, stream: "userinfo/\(login.userId)"))
            #expect(await eventually(timeout: .seconds(2)) { reader.ended.current })
            // Where the stream outlived the release, it is stopped here, not left running.
            released?.stop()
        }
    }

    @Test func cancellingTheReaderOfAWorkflowStreamClosesItsConnection() async throws {
        try await withRunningServer { server in
            try await server.admin.workflows.create(id: "w-cancelled", iterations: 5, paceSeconds: 3600)
            let client = WorkflowClient(baseURL: server.baseURL, apiKey: server.app.workflowAPIKey)
            let stream = try #require(try await client.follow("w-cancelled", policy: policy))
            let reader = Reader(stream.messages)
            stream.start()
            #expect(await eventually { stream.source.state == .open })
            reader.task.cancel()
            #expect(try await closedByTheClient(server, stream: "workflows/w-cancelled"))
            #expect(stream.source.state == .closed(.stopped))
            #expect(try await server.admin.streams.connections(stream: "workflows/w-cancelled").count == 1)
            stream.stop()
        }
    }

    @Test func releasingAStartedWorkflowStreamClosesItsConnection() async throws {
        try await withRunningServer { server in
            try await server.admin.workflows.create(id: "w-released", iterations: 5, paceSeconds: 3600)
            let client = WorkflowClient(baseURL: server.baseURL, apiKey: server.app.workflowAPIKey)
            var stream = try await client.follow("w-released", policy: policy)
            weak let released = stream
            let reader = try Reader(#require(stream).messages)
            stream?.start()
            #expect(await eventually { stream?.source.state == .open })
            stream = nil
            #expect(released == nil)
            #expect(try await closedByTheClient(server, stream: "workflows/w-released"))
            #expect(await eventually(timeout: .seconds(2)) { reader.ended.current })
            released?.stop()
        }
    }

    @Test func cancellingTheReaderOfAnEventSourceClosesItsConnection() async throws {
        try await withRunningServer { server in
            let source = EventSource(
                url: server.baseURL.appendingPathComponent("sse/channels/cancelled"),
                configuration: .init(policy: policy))
            let reader = Reader(source.events)
            source.start()
            #expect(await eventually { source.state == .open })
            reader.task.cancel()
            let closed = try await closedByTheClient(server, stream: "channels/cancelled")
            #expect(closed)
            #expect(source.state == .closed(.stopped))
            source.stop()
        }
    }

    @Test func releasingAStartedEventSourceClosesItsConnection() async throws {
        try await withRunningServer { server in
            var source: EventSource? = EventSource(
                url: server.baseURL.appendingPathComponent("sse/channels/released"),
                configuration: .init(policy: policy))
            weak let released = source
            let reader = try Reader(#require(source).events)
            source?.start()
            #expect(await eventually { source?.state == .open })
            source = nil
            #expect(released == nil)
            #expect(try await closedByTheClient(server, stream: "channels/released"))
            #expect(await eventually(timeout: .seconds(2)) { reader.ended.current })
            released?.stop()
        }
    }

    @Test func cancellingTheReaderOfAJobTrackerClosesItsStream() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 10)
            var configuration = JobTrackerConfiguration.import
            configuration.policy = policy
            let tracker = JobTracker(
                importJobId: jobId, baseURL: server.baseURL, configuration: configuration, clock: TestClock())
            let reader = Reader(tracker.updates)
            tracker.start()
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "imports/\(jobId)")?.snapshot.subscribers.count == 1
                })
            reader.task.cancel()
            #expect(try await closedByTheClient(server, stream: "imports/\(jobId)"))
            #expect(tracker.phase == .cancelled)
            tracker.cancel()
        }
    }
}
