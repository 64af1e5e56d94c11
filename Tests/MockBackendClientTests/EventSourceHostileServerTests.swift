import Foundation
import MockBackend
import MockBackendClient
import MockBackendSupport
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// A server that sends what a client must survive: bodies from `/conformance/sse/raw`.
@Suite("EventSource against a hostile server")
struct EventSourceHostileServerTests {
    @Test func aHugeRetryIsCappedNotACrash() async throws {
        try await withRunningServer { server in
            let url = rawURL(server, body: "retry: 99999999999999999999\ndata: x\n\n")
            let clock = TestClock()
            let source = EventSource(url: url, configuration: .init(policy: .init(jitter: 0)), clock: clock)
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually { collected.data == ["x"] })
            #expect(await clock.sleepers(atLeast: 1))
            #expect(clock.sleeps == [.seconds(3600)])
            #expect(source.state == .backingOff(delay: .seconds(3600), attempt: 1))
            source.stop()
        }
    }

    @Test func retryZeroWithAnImmediateCloseBacksOffAndFallsBackToPolling() async throws {
        try await withRunningServer { server in
            let polled = LockedValue(false)
            let source = EventSource(
                url: rawURL(server, body: "retry: 0\n\n"),
                configuration: .init(
                    policy: .init(initialDelay: .milliseconds(10), maxAttempts: 4, jitter: 0),
                    pollingFallback: { _ in polled.withLock { $0 = true } }))
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually { collected.ended.current })
            #expect(polled.current)
            let backoffs = collected.states.current.compactMap { state -> Duration? in
                if case .backingOff(let delay, _) = state { delay } else { nil }
            }
            #expect(backoffs == [.milliseconds(10), .milliseconds(20), .milliseconds(40), .milliseconds(80)])
            #expect(source.state == .closed(.pollingFinished))
        }
    }

    @Test func anUndispatchedIDDoesNotLeakIntoTheNextConnection() async throws {
        try await withRunningServer { server in
            // format-data-before-final-empty-line: `id:test` belongs to an event never finished.
            let source = EventSource(
                url: rawURL(server, body: "retry:0\ndata:test1\n\nid:test\ndata:test2\n"),
                configuration: .init(policy: .init(initialDelay: .milliseconds(10), jitter: 0)))
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually { collected.events.current.count >= 2 })
            source.stop()
            #expect(
                collected.events.current.prefix(2) == [ServerSentEvent(data: "test1"), ServerSentEvent(data: "test1")])
            #expect(source.lastEventID == "")
        }
    }

    @Test func aLineWithoutEndStopsTheSourceWithATypedError() async throws {
        try await withRunningServer { server in
            let body = "data: ok\n\ndata: " + String(repeating: "x", count: 5000)
            let source = EventSource(
                url: rawURL(server, body: body),
                configuration: .init(
                    policy: .init(initialDelay: .milliseconds(10), jitter: 0),
                    parserLimits: SSEParserLimits(maxLineBytes: 1024)))
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually { collected.ended.current })
            #expect(collected.data == ["ok"])
            let error = EventSourceError(reason: .streamLimitExceeded(.lineTooLong(limit: 1024)))
            #expect(collected.failure.current == error)
            #expect(source.state == .closed(.streamLimitExceeded(.lineTooLong(limit: 1024))))
        }
    }

    @Test func theLoggerHearsEveryConnectEventBackoffAndStop() async throws {
        try await withRunningServer { server in
            let (logger, records) = CapturingLogHandler.logger()
            let url = try #require(URL(string: "\(server.baseURL)/conformance/sse/reconnect-then-204?retry=20"))
            let source = EventSource(
                url: url, configuration: .init(policy: .init(initialDelay: .milliseconds(10)), logger: logger))
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually { collected.ended.current })
            let messages = records.all.map(\.message)
            #expect(messages == ["connecting", "open", "event", "backing off", "connecting", "stopped"])
            #expect(records.all.last?.metadata["reason"] == "noContent")
            #expect(records.all.first { $0.message == "event" }?.metadata["id"] == "1")
        }
    }

    @Test func withoutALoggerNothingIsLogged() {
        #expect(EventSourceConfiguration().logger == nil)
    }
}
