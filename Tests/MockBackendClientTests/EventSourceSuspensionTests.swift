import Foundation
import MockBackend
import MockBackendClient
import MockBackendSupport
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("EventSource suspend, resume and reconnectNow against the server")
struct EventSourceSuspensionTests {
    private func subscribers(_ server: RunningServer, _ name: String) -> Int {
        server.app.streams.existingStream(named: name)?.snapshot.subscribers.count ?? 0
    }

    @Test func suspendClosesTheConnectionAndResumeReplaysWhatWasMissed() async throws {
        try await withRunningServer { server in
            let source = EventSource(
                url: server.baseURL.appendingPathComponent("sse/channels/background"),
                configuration: .init(policy: ReconnectionPolicy(initialDelay: .milliseconds(20), jitter: 0)))
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually { subscribers(server, "channels/background") == 1 })
            try await server.admin.streams.push(to: "channels/background", data: .string("one"))
            #expect(await eventually { collected.data == ["one"] })
            source.suspend()
            #expect(source.state == .suspended)
            #expect(await eventually { subscribers(server, "channels/background") == 0 })
            try await server.admin.streams.push(to: "channels/background", data: .string("two"))
            try await server.admin.streams.push(to: "channels/background", data: .string("three"))
            // Suspended means no reconnection, however long it lasts.
            try await Task.sleep(for: .milliseconds(300))
            #expect(subscribers(server, "channels/background") == 0)
            #expect(source.state == .suspended)
            source.resume()
            #expect(await eventually { collected.data == ["one", "two", "three"] })
            let connections = server.app.streams.journal.snapshots(stream: "channels/background")
            #expect(connections.map(\.lastEventId) == [nil, "1"])
            #expect(collected.states.current.contains(.suspended))
            #expect(collected.states.current.last == .open)
            source.stop()
            #expect(await eventually { collected.ended.current })
            #expect(collected.failure.current == nil)
        }
    }

    @Test func reconnectNowSkipsAPendingBackoff() async throws {
        try await withRunningServer { server in
            let clock = TestClock()
            let source = EventSource(
                url: server.baseURL.appendingPathComponent("sse/channels/network"),
                configuration: .init(policy: ReconnectionPolicy(initialDelay: .seconds(30), jitter: 0)),
                clock: clock, random: { 0 })
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually { subscribers(server, "channels/network") == 1 })
            try await server.admin.streams.push(to: "channels/network", data: .string("one"))
            #expect(await eventually { collected.data == ["one"] })
            try await server.admin.streams.disconnect("channels/network")
            #expect(await clock.sleepers(atLeast: 1))
            #expect(source.state == .backingOff(delay: .seconds(30), attempt: 1))
            try await server.admin.streams.push(to: "channels/network", data: .string("two"))
            source.reconnectNow()
            #expect(await eventually { collected.data == ["one", "two"] })
            #expect(source.state == .open)
            // The clock never moved: no backoff was waited out, and the sleep was left.
            #expect(clock.now == TestClock.Instant(offset: .zero))
            #expect(await eventually { clock.sleeperCount == 0 })
            let connections = server.app.streams.journal.snapshots(stream: "channels/network")
            #expect(connections.map(\.lastEventId) == [nil, "1"])
            source.stop()
        }
    }

    @Test func aSuspensionDuringABackoffHoldsUntilResume() async throws {
        try await withRunningServer { server in
            let clock = TestClock()
            let source = EventSource(
                url: server.baseURL.appendingPathComponent("sse/channels/held"),
                configuration: .init(policy: ReconnectionPolicy(initialDelay: .seconds(5), jitter: 0)),
                clock: clock, random: { 0 })
            source.start()
            #expect(await eventually { subscribers(server, "channels/held") == 1 })
            try await server.admin.streams.disconnect("channels/held")
            #expect(await clock.sleepers(atLeast: 1))
            source.suspend()
            #expect(source.state == .suspended)
            #expect(await eventually { clock.sleeperCount == 0 })
            // The backoff's end comes and goes: still suspended.
            clock.advance(by: .seconds(60))
            try await Task.sleep(for: .milliseconds(200))
            #expect(source.state == .suspended)
            #expect(server.app.streams.journal.snapshots(stream: "channels/held").count == 1)
            source.resume()
            #expect(await eventually { source.state == .open })
            #expect(server.app.streams.journal.snapshots(stream: "channels/held").count == 2)
            source.stop()
        }
    }

    @Test func reconnectNowReplacesAnOpenConnection() async throws {
        try await withRunningServer { server in
            let source = EventSource(
                url: server.baseURL.appendingPathComponent("sse/channels/replaced"),
                configuration: .init(policy: ReconnectionPolicy(initialDelay: .seconds(30), jitter: 0)))
            source.start()
            #expect(await eventually { subscribers(server, "channels/replaced") == 1 })
            source.reconnectNow()
            #expect(await eventually { server.app.streams.journal.snapshots(stream: "channels/replaced").count == 2 })
            #expect(await eventually { subscribers(server, "channels/replaced") == 1 })
            #expect(await eventually { source.state == .open })
            source.stop()
        }
    }

    /// `start()` starts the machine in the caller's task, so a suspension right after it
    /// holds: the app's first connection waits for `resume()`.
    /// A suspension that comes while the request is being made (the provider is still
    /// running) sends nothing: the request made for the connection the app dropped never
    /// reaches the server.
    @Test func aSuspensionWhileTheRequestIsMadeSendsNothing() async throws {
        try await withRunningServer { server in
            let url = server.baseURL.appendingPathComponent("sse/channels/made")
            let provided = LockedValue(0)
            let gate = AsyncStream.makeStream(of: Void.self)
            let source = EventSource { [gate] in
                provided.withLock { $0 += 1 }
                for await _ in gate.stream { break }
                return URLRequest(url: url)
            }
            source.start()
            #expect(await eventually { provided.current == 1 })
            source.suspend()
            gate.continuation.yield()
            try await Task.sleep(for: .milliseconds(300))
            #expect(server.app.streams.journal.snapshots(stream: "channels/made").isEmpty)
            #expect(source.state == .suspended)
            gate.continuation.yield()
            source.resume()
            #expect(await eventually { source.state == .open })
            #expect(server.app.streams.journal.snapshots(stream: "channels/made").count == 1)
            source.stop()
        }
    }

    /// A suspension right after `start()` leaves no connection open: the loop may already
    /// have sent the request on another thread (then the suspension closes it), or it sends
    /// nothing (`aSuspensionWhileTheRequestIsMadeSendsNothing` holds that window open).
    /// `resume()` then opens exactly one.
    @Test func aSuspensionRightAfterStartLeavesNoConnectionOpen() async throws {
        try await withRunningServer { server in
            let source = EventSource(url: server.baseURL.appendingPathComponent("sse/channels/early"))
            source.start()
            source.suspend()
            #expect(source.state == .suspended)
            try await Task.sleep(for: .milliseconds(200))
            #expect(await eventually { subscribers(server, "channels/early") == 0 })
            #expect(
                await eventually {
                    server.app.streams.journal.snapshots(stream: "channels/early").allSatisfy { $0.endedAt != nil }
                })
            let before = server.app.streams.journal.snapshots(stream: "channels/early")
            source.resume()
            #expect(await eventually { source.state == .open })
            #expect(await eventually { subscribers(server, "channels/early") == 1 })
            #expect(server.app.streams.journal.snapshots(stream: "channels/early").count == before.count + 1)
            source.stop()
        }
    }
}
