import Foundation
import MockBackend
import MockBackendClient
import MockBackendHTTP
import MockBackendSupport
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// Collects what an event source yields, for assertions from the test task.
final class Collected: Sendable {
    let events = LockedValue<[ServerSentEvent]>([])
    let states = LockedValue<[EventSourceState]>([])
    let failure = LockedValue<EventSourceError?>(nil)
    let ended = LockedValue(false)

    func follow(_ source: EventSource) {
        // Subscribed here, before the source starts, so no state is missed; the tasks hold
        // the streams, not the source.
        let states = source.states
        let events = source.events
        Task {
            do {
                for try await event in events { self.events.withLock { $0.append(event) } }
            } catch let error as EventSourceError {
                failure.withLock { $0 = error }
            } catch {}
            ended.withLock { $0 = true }
        }
        Task {
            for await state in states { self.states.withLock { $0.append(state) } }
        }
    }

    var data: [String] { events.current.map(\.data) }
}

@Suite("EventSource against the server")
struct EventSourceTests {
    private let fastPolicy = ReconnectionPolicy(initialDelay: .milliseconds(50), maxAttempts: 4, jitter: 0)

    @Test(arguments: ClientTransport.available)
    func resumesAfterADropWithLastEventIDAndLosesNothing(over transport: ClientTransport) async throws {
        try await withServer(over: transport) { server, base in
            let url = base.appendingPathComponent("sse/channels/resume")
            let source = EventSource(
                url: url, configuration: .init(policy: fastPolicy, headers: ["X-Client-Id": "resume-test"]))
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "channels/resume")?.snapshot.subscribers.count == 1
                })
            for index in 1...5 {
                try await server.admin.streams.push(to: "channels/resume", data: .string("e\(index)"))
            }
            #expect(await eventually { collected.events.current.count == 5 })

            // Drop the connection; events published while the client is away are replayed.
            try await server.admin.streams.disconnect("channels/resume")
            for index in 6...8 {
                try await server.admin.streams.push(to: "channels/resume", data: .string("e\(index)"))
            }
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "channels/resume")?.snapshot.subscribers.count == 1
                })
            for index in 9...10 {
                try await server.admin.streams.push(to: "channels/resume", data: .string("e\(index)"))
            }
            #expect(await eventually { collected.events.current.count >= 10 })
            try await Task.sleep(for: .milliseconds(100))
            #expect(collected.data == (1...10).map { "e\($0)" })
            #expect(collected.events.current.map(\.id) == (1...10).map { "\($0)" })

            let connections = server.app.streams.journal.snapshots(stream: "channels/resume")
            #expect(connections.count == 2)
            #expect(connections[0].endReason == "admin")
            #expect(connections[1].lastEventId == "5")
            #expect(connections[1].deliveredIds == (6...10).map { "\($0)" })
            // Over the transport asked for: h2 on the TLS listener, not HTTP/1.1 there.
            let journal = try await server.admin.requests.list(path: "/sse/channels/resume")
            #expect(journal.map(\.protocol) == [transport.journaledProtocol, transport.journaledProtocol])
            let gap = try #require(connections[1].reconnect?.gapMs)
            #expect(gap >= 40)
            #expect(collected.states.current.contains(.backingOff(delay: .milliseconds(50), attempt: 1)))
            source.stop()
            #expect(await eventually { collected.ended.current })
            #expect(source.state == .closed(.stopped))
        }
    }

    @Test(
        "receives every event intact under a fragment fault",
        arguments: ClientTransport.available,
        [Fault.fragment(.bytes(1), pauseMilliseconds: 2), .fragment(.crlf, pauseMilliseconds: 10)])
    func fragmentedStream(over transport: ClientTransport, _ fault: Fault) async throws {
        try await withServer(over: transport) { server, base in
            try await server.admin.faults.add(fault, match: .init(path: "/sse/channels/fragments"))
            let source = EventSource(
                url: base.appendingPathComponent("sse/channels/fragments"),
                configuration: .init(policy: fastPolicy))
            let collected = Collected()
            collected.follow(source)
            source.start()
            let stream = server.app.streams.stream(named: "channels/fragments")
            #expect(await eventually { stream.snapshot.subscribers.count == 1 })
            let sent = ["café au lait", "two\nlines", "🎉"]
            for data in sent { stream.publish(ServerSentEvent(data: data)) }
            #expect(await eventually { collected.events.current.count == 3 })
            #expect(collected.data == sent)
            source.stop()
        }
    }

    @Test(arguments: ClientTransport.available)
    func serverRetryChangesTheDelayTheClientUses(over transport: ClientTransport) async throws {
        try await withServer(over: transport) { server, base in
            let url = base.appendingPathComponent("sse/channels/retry")
            let source = EventSource(
                url: url, configuration: .init(policy: fastPolicy, headers: ["X-Client-Id": "retry-test"]))
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "channels/retry")?.snapshot.subscribers.count == 1
                })
            try await server.admin.streams.push(to: "channels/retry", data: .string("slow down"), retry: 600)
            #expect(await eventually { collected.events.current.count == 1 })
            try await server.admin.streams.disconnect("channels/retry")
            #expect(
                await eventually(timeout: .seconds(15)) {
                    server.app.streams.journal.snapshots(stream: "channels/retry").count == 2
                })
            let reconnect = try #require(server.app.streams.journal.snapshots(stream: "channels/retry").last?.reconnect)
            #expect(reconnect.advertisedRetryMs == 600)
            #expect(reconnect.gapMs >= 590)
            #expect(collected.states.current.contains(.backingOff(delay: .milliseconds(600), attempt: 1)))
            source.stop()
        }
    }

    @Test(arguments: ClientTransport.available)
    func stopsForGoodOn204(over transport: ClientTransport) async throws {
        try await withServer(over: transport) { server, base in
            let url = try #require(URL(string: "\(base)/conformance/sse/reconnect-then-204?retry=50"))
            let source = EventSource(url: url, configuration: .init(policy: fastPolicy))
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually { collected.ended.current })
            #expect(collected.data == ["first"])
            #expect(source.state == .closed(.noContent))
            #expect(collected.failure.current == nil)
            #expect(collected.states.current.last == .closed(.noContent))
        }
    }

    @Test(arguments: ClientTransport.available)
    func stopsForGoodOn403(over transport: ClientTransport) async throws {
        try await withServer(over: transport) { server, base in
            // The first request gets 403; a client that retried would get "ok" next.
            let url = try #require(
                URL(string: "\(base)/conformance/sse/status-then-ok?status=403&key=stop403"))
            let source = EventSource(url: url, configuration: .init(policy: fastPolicy))
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually { collected.ended.current })
            #expect(collected.failure.current == EventSourceError(reason: .unauthorized(status: 403)))
            try await Task.sleep(for: .milliseconds(200))
            #expect(collected.events.current.isEmpty)
            #expect(!collected.states.current.contains { if case .backingOff = $0 { true } else { false } })
        }
    }

    @Test(arguments: ClientTransport.available)
    func retriesA503AndThenReads(over transport: ClientTransport) async throws {
        try await withServer(over: transport) { server, base in
            let url = try #require(
                URL(string: "\(base)/conformance/sse/status-then-ok?status=503&key=retry503"))
            let source = EventSource(url: url, configuration: .init(policy: fastPolicy))
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually { collected.data.first == "ok" })
            source.stop()
        }
    }

    @Test func handsOverToPollingAfterTheLastTry() async throws {
        let polled = LockedValue<String?>(nil)
        let policy = ReconnectionPolicy(initialDelay: .milliseconds(10), maxAttempts: 3, jitter: 0)
        // A port nobody listens on: every attempt is refused.
        let url = try #require(URL(string: "http://127.0.0.1:1/stream"))
        let source = EventSource(
            url: url,
            configuration: .init(
                policy: policy, lastEventID: "41", pollingFallback: { last in polled.withLock { $0 = last } }))
        let collected = Collected()
        collected.follow(source)
        source.start()
        // The default bound (30 s): the tries take milliseconds, but while the rest of the run
        // starts up on two cores this test's tasks may wait that long for a thread.
        #expect(await eventually { collected.ended.current })
        #expect(polled.current == "41")
        #expect(collected.states.current.contains(.polling))
        #expect(source.state == .closed(.pollingFinished))
        let backoffs = collected.states.current.compactMap { state -> Int? in
            if case .backingOff(_, let attempt) = state { attempt } else { nil }
        }
        #expect(backoffs == [1, 2, 3])
    }

    @Test func slowSubscriberIsDisconnectedAndLosesNothingAfterReconnecting() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.http.maxUnsentStreamBytes = 64 * 1024
        try await withRunningServer(configuration) { server in
            let stream = server.app.streams.stream(named: "channels/flood", settings: .init(retention: 5000))
            let slow = try RawHTTPClient(port: server.port, receiveBufferSize: 4096)
            try slow.send("GET /sse/channels/flood HTTP/1.1\r\nHost: t\r\nX-Client-Id: slow\r\n\r\n")
            #expect(await eventually { stream.snapshot.subscribers.count == 1 })
            let payload = String(repeating: "x", count: 4000)
            for index in 1...3000 { stream.publish(ServerSentEvent(data: "\(index) \(payload)")) }
            #expect(
                await eventually(timeout: .seconds(15)) {
                    server.app.streams.journal.snapshots(stream: "channels/flood").first?.endReason == "slow_reader"
                })
            // What reached the slow client, parsed; then a reconnect from its last id.
            var parser = SSEParser()
            while (try? await slow.receive(timeout: .milliseconds(200))) ?? 0 > 0 {}
            var received = parser.feed(slow.takeBuffer()).compactMap { output -> Int? in
                guard case .event(let event) = output else { return nil }
                return Int(event.data.split(separator: " ")[0])
            }
            let source = EventSource(
                url: server.baseURL.appendingPathComponent("sse/channels/flood"),
                configuration: .init(policy: fastPolicy, lastEventID: parser.lastEventID))
            let collected = Collected()
            collected.follow(source)
            source.start()
            let alreadyReceived = received.last ?? 0
            let complete = await eventually(timeout: .seconds(15)) {
                alreadyReceived + collected.events.current.count >= 3000
            }
            #expect(complete)
            received += collected.data.compactMap { Int($0.split(separator: " ")[0]) }
            #expect(received == Array(1...3000))
            source.stop()
        }
    }
}
