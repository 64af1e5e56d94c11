import Foundation
import MockBackend
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// Adds a stub answering `GET path` with an event stream of one event (`data`, id 1) that
/// then ends: a server, or a proxy, that closes every connection after one event.
private func stubOneEventThenClose(_ server: RunningServer, path: String, data: String) async throws {
    let mapping = """
        {"priority":1,"request":{"method":"GET","urlPath":"\(path)"},
         "response":{"sse":{"close":true,"events":[{"data":\(data),"id":"1"}]}}}
        """
    #expect(try await server.request("POST", "/__admin/mappings", body: mapping).status == 201)
}

/// How many times `path` was asked for, from the request journal.
private func connections(_ server: RunningServer, path: String) async throws -> Int {
    try await server.admin.requests.count(RequestMatcher(method: "GET", path: path))
}

/// The time from each request for `path` to the next, oldest first, from the request journal.
private func gaps(_ server: RunningServer, path: String) async throws -> [Duration] {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let times = try await server.admin.requests.list(method: "GET", path: path).reversed().map { request in
        try #require(formatter.date(from: request.receivedAt)).timeIntervalSinceReferenceDate
    }
    return zip(times, times.dropFirst()).map { .seconds($1 - $0) }
}

/// A connection that delivers an event and closes before `backoffResetThreshold` is a failed
/// attempt: the delays grow and reconnection gives up after `maxAttempts`.
@Suite("A server that sends one event and closes")
struct ShortConnectionBackoffTests {
    @Test func theEventSourceBacksOffAsConfiguredThenHandsOverToPolling() async throws {
        try await withRunningServer { server in
            let path = "/flaky/updates"
            try await stubOneEventThenClose(server, path: path, data: #""tick""#)
            let clock = TestClock()
            let polledFrom = LockedValue<[String]>([])
            let source = EventSource(
                url: try #require(URL(string: "\(server.baseURL)\(path)")),
                configuration: .init(
                    policy: ReconnectionPolicy(
                        initialDelay: .milliseconds(100), multiplier: 2, maxAttempts: 3, jitter: 0),
                    pollingFallback: { lastEventID in polledFrom.withLock { $0.append(lastEventID) } }),
                clock: clock)
            let collected = Collected()
            collected.follow(source)
            source.start()
            let delays: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400)]
            for (index, delay) in delays.enumerated() {
                // Each connection delivered its event before the backoff began.
                #expect(await clock.sleepers(atLeast: 1))
                #expect(await eventually(timeout: .seconds(5)) { collected.events.current.count == index + 1 })
                #expect(source.state == .backingOff(delay: delay, attempt: index + 1))
                #expect(clock.sleeps.last == delay)
                clock.advance(by: delay)
            }
            #expect(await eventually(timeout: .seconds(5)) { collected.ended.current })
            #expect(clock.sleeps == delays)
            #expect(polledFrom.current == ["1"])
            #expect(source.state == .closed(.pollingFinished))
            // The first connection, then `maxAttempts` reconnections.
            #expect(try await connections(server, path: path) == 1 + delays.count)
            #expect(collected.data == ["tick", "tick", "tick", "tick"])
            source.stop()
        }
    }

    @Test func theUserInfoStreamStopsWithRetriesExhausted() async throws {
        try await withRunningServer { server in
            let path = "/v2/player/7000001/information/updates"
            try await stubOneEventThenClose(server, path: path, data: #"{"type":"PING"}"#)
            let stream = UserInfoStream(
                baseURL: server.baseURL, userId: 7_000_001, sessionId: "s",
                policy: ReconnectionPolicy(initialDelay: .milliseconds(50), maxAttempts: 3, jitter: 0))
            let drain = UserInfoDrain(stream)
            stream.start()
            // Real time: four connections and 350 ms of backoff; a loaded machine may be slow
            // to open them.
            #expect(await eventually { drain.ended.current })
            #expect(drain.failure.current as? EventSourceError == EventSourceError(reason: .retriesExhausted))
            #expect(drain.messages.current.count == 4)
            #expect(try await connections(server, path: path) == 4)
            // Each reconnection waited at least its delay, doubling from 50 ms (less 1 ms: the
            // journal's times are in milliseconds).
            let waited = try await gaps(server, path: path)
            let delays: [Duration] = [.milliseconds(50), .milliseconds(100), .milliseconds(200)]
            #expect(waited.count == delays.count)
            #expect(zip(waited, delays).allSatisfy { $0 >= $1 - .milliseconds(1) }, "\(waited)")
            stream.stop()
        }
    }
}
