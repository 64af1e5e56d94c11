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

/// A field of a journaled request, whatever the case its name was sent in.
func header(_ name: String, in headers: [String: String]) -> String? {
    headers.first { $0.key.lowercased() == name.lowercased() }?.value
}

@Suite("EventSource request provider against the server")
struct EventSourceRequestProviderTests {
    private let policy = ReconnectionPolicy(initialDelay: .milliseconds(20), maxAttempts: 4, jitter: 0)

    private struct TokenRefreshFailed: Error {}

    @Test func theProviderIsAskedBeforeEveryConnectionSoEachCarriesItsOwnToken() async throws {
        try await withRunningServer { server in
            let url = server.baseURL.appendingPathComponent("sse/channels/tokens")
            let calls = LockedValue(0)
            let source = EventSource(configuration: .init(policy: policy)) {
                let call = calls.withLock { calls in
                    calls += 1
                    return calls
                }
                var request = URLRequest(url: url)
                request.setValue("Bearer token-\(call)", forHTTPHeaderField: "Authorization")
                return request
            }
            let collected = Collected()
            collected.follow(source)
            source.start()
            #expect(await eventually { source.state == .open })
            try await server.admin.streams.push(to: "channels/tokens", data: .string("one"))
            #expect(await eventually { collected.data == ["one"] })
            try await server.admin.streams.disconnect("channels/tokens")
            #expect(await eventually { server.app.streams.journal.snapshots(stream: "channels/tokens").count == 2 })
            let connections = server.app.streams.journal.snapshots(stream: "channels/tokens")
            #expect(
                connections.map { header("Authorization", in: $0.requestHeaders) } == [
                    "Bearer token-1", "Bearer token-2",
                ])
            #expect(
                connections.map { header("Accept", in: $0.requestHeaders) } == [
                    "text/event-stream", "text/event-stream",
                ])
            #expect(connections.map(\.lastEventId) == [nil, "1"])
            #expect(calls.current == 2)
            source.stop()
        }
    }

    @Test func aPOSTStreamSendsItsBodyOnEveryConnection() async throws {
        try await withRunningServer { server in
            let mapping = """
                {"request":{"method":"POST","urlPath":"/streams/search"},
                 "response":{"sse":{"close":true,"events":[{"data":"found","id":"7"}]}}}
                """
            #expect(try await server.request("POST", "/__admin/mappings", body: mapping).status == 201)
            let url = server.baseURL.appendingPathComponent("streams/search")
            let source = EventSource(configuration: .init(policy: policy)) {
                var request = URLRequest(url: url)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.httpBody = Data(#"{"query":"cats"}"#.utf8)
                return request
            }
            let collected = Collected()
            collected.follow(source)
            source.start()
            // The stub closes after its event, so the source reconnects: a second POST.
            #expect(await eventually { collected.data.count >= 2 })
            source.stop()
            let requests = try await server.admin.requests.list(method: "POST", path: "/streams/search")
            #expect(requests.count >= 2)
            let firstTwo = requests.suffix(2).reversed().map { $0 }
            #expect(firstTwo.map(\.bodyExcerpt) == [#"{"query":"cats"}"#, #"{"query":"cats"}"#])
            #expect(firstTwo.map(\.status) == [200, 200])
            #expect(firstTwo.map { header("Last-Event-ID", in: $0.headers) } == [nil, "7"])
        }
    }

    @Test func aProviderThatThrowsOnAReconnectionStopsTheSourceWithItsError() async throws {
        try await withRunningServer { server in
            let url = server.baseURL.appendingPathComponent("sse/channels/refresh")
            let calls = LockedValue(0)
            let source = EventSource(configuration: .init(policy: policy)) {
                let call = calls.withLock { calls in
                    calls += 1
                    return calls
                }
                guard call == 1 else { throw TokenRefreshFailed() }
                return URLRequest(url: url)
            }
            let failure = LockedValue<EventSourceError?>(nil)
            let events = source.events
            let reader = Task {
                do {
                    for try await _ in events {}
                } catch let error as EventSourceError {
                    failure.withLock { $0 = error }
                }
            }
            source.start()
            #expect(await eventually { source.state == .open })
            try await server.admin.streams.disconnect("channels/refresh")
            try await reader.value
            let error = try #require(failure.current)
            guard case .requestFailed(let description) = error.reason else {
                Issue.record("stopped with \(error.reason)")
                return
            }
            #expect(description.contains("TokenRefreshFailed"))
            #expect(error.underlyingError is TokenRefreshFailed)
            #expect(source.state == .closed(error.reason))
            // No retries once the provider has failed.
            try await Task.sleep(for: .milliseconds(200))
            #expect(calls.current == 2)
            #expect(server.app.streams.journal.snapshots(stream: "channels/refresh").count == 1)
        }
    }
}
