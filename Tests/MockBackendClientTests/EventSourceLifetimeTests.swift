import Foundation
import MockBackend
import MockBackendClient
import MockBackendSupport
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

@Suite("EventSource lifetime against the server")
struct EventSourceLifetimeTests {
    private let policy = ReconnectionPolicy(initialDelay: .milliseconds(20), maxAttempts: 4, jitter: 0)

    private func subscribers(_ server: RunningServer, _ name: String) -> Int {
        server.app.streams.existingStream(named: name)?.snapshot.subscribers.count ?? 0
    }

    @Test func cancellingTheIteratingTaskEndsTheConnectionForGood() async throws {
        try await withRunningServer { server in
            let source = EventSource(
                url: server.baseURL.appendingPathComponent("sse/channels/cancelled"),
                configuration: .init(policy: policy))
            let received = LockedValue(0)
            let events = source.events
            let reader = Task {
                for try await _ in events { received.withLock { $0 += 1 } }
            }
            source.start()
            #expect(await eventually { subscribers(server, "channels/cancelled") == 1 })
            try await server.admin.streams.push(to: "channels/cancelled", data: .string("one"))
            #expect(await eventually { received.current == 1 })
            reader.cancel()
            #expect(await eventually { subscribers(server, "channels/cancelled") == 0 })
            #expect(await eventually { source.state == .closed(.stopped) })
            try await Task.sleep(for: .milliseconds(300))
            #expect(subscribers(server, "channels/cancelled") == 0)
            #expect(server.app.streams.journal.snapshots(stream: "channels/cancelled").count == 1)
        }
    }

    @Test func lettingGoOfTheSourceStopsIt() async throws {
        try await withRunningServer { server in
            var source: EventSource? = EventSource(
                url: server.baseURL.appendingPathComponent("sse/channels/dropped"),
                configuration: .init(policy: policy))
            let collected = Collected()
            if let source {
                collected.follow(source)
                source.start()
            }
            #expect(await eventually { subscribers(server, "channels/dropped") == 1 })
            source = nil
            #expect(await eventually { collected.ended.current })
            #expect(await eventually { subscribers(server, "channels/dropped") == 0 })
            try await Task.sleep(for: .milliseconds(300))
            #expect(subscribers(server, "channels/dropped") == 0)
            #expect(server.app.streams.journal.snapshots(stream: "channels/dropped").count == 1)
            #expect(collected.states.current.last == .closed(.stopped))
        }
    }

    @Test func everyConsumerOfStatesSeesTheSameChanges() async throws {
        try await withRunningServer { server in
            let url = try #require(URL(string: "\(server.baseURL)/conformance/sse/reconnect-then-204?retry=20"))
            let source = EventSource(url: url, configuration: .init(policy: policy))
            let first = Collected()
            first.follow(source)
            // A second consumer of the states (events have one consumer only).
            let second = LockedValue<[EventSourceState]>([])
            let states = source.states
            Task { for await state in states { second.withLock { $0.append(state) } } }
            source.start()
            #expect(await eventually { first.states.current.last == .closed(.noContent) })
            #expect(await eventually { second.current.last == .closed(.noContent) })
            #expect(first.states.current == second.current)
            #expect(first.states.current.first == .connecting(attempt: 0))
            // A consumer that comes late gets the state now, and the end.
            var late: [EventSourceState] = []
            for await state in source.states { late.append(state) }
            #expect(late == [.closed(.noContent)])
        }
    }
}
