import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import ServerSentEvents
import Testing

/// The proxy's rules over real sockets, a second mock as upstream: Host preserved on
/// request, connections kept for reuse, stubs first, refused hosts never proxied, and a
/// reader that stops holding its upstream back instead of filling the proxy's memory.
@Suite("Proxy: rules")
struct ProxyRulesTests {
    @Test func hostBecomesTheUpstreamsUnlessPreserved() async throws {
        var settings = ProxySettings()
        settings.preserveHost = true
        try await withProxiedUpstream(settings) { upstream, proxy in
            let answer = try await Self.get("/health", host: "localhost:3000", from: proxy)
            #expect(answer.status == 200)
            let seen = try #require(upstream.app.requests.entries().first)
            #expect(seen.headers["Host"] == "localhost:3000")
            #expect(seen.headers["X-Forwarded-Host"] == "localhost:3000")
        }
    }

    @Test func connectionsToTheUpstreamAreKeptAndReused() async throws {
        try await withProxiedUpstream { upstream, proxy in
            for _ in 1...5 {
                let answer = try await proxy.request("GET", "/health")
                #expect(answer.status == 200)
            }
            #expect(upstream.app.statistics.acceptedConnections == 1)
            #expect(proxy.app.upstreamStatistics.openConnections == 1)
        }
    }

    @Test func stubsAnswerFirstAndRefusedHostsNeverGoUpstream() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let stub = try await proxy.request(
                "POST", "/__admin/mappings",
                body: #"{"request":{"urlPath":"/health"},"response":{"status":299,"body":"stubbed"}}"#)
            #expect(stub.status == 201)
            let stubbed = try await proxy.request("GET", "/health")
            #expect(stubbed.status == 299)
            #expect(stubbed.text == "stubbed")
            let refused = try await Self.get("/other", host: "rebind.evil.example", from: proxy)
            #expect(refused.status == 421)
            #expect(upstream.app.requests.entries().isEmpty)
        }
    }

    /// A GET with this `Host` (the request helpers send their own).
    static func get(_ target: String, host: String, from server: RunningServer) async throws -> RawResponse {
        let client = try server.connect()
        defer { client.close() }
        try client.send("GET \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
        return try await client.readResponse()
    }

    @Test func aReaderThatStopsHoldsItsUpstreamBackAndLosesNothing() async throws {
        var upstreamConfiguration = MockBackendConfiguration.forTesting()
        // The upstream's flood waits for its reader (the proxy) as long as it takes.
        upstreamConfiguration.floodPatience = .seconds(120)
        try await withRunningServer(upstreamConfiguration) { upstream in
            try await withProxy(to: upstream.port) { proxy in
                let client = try await proxy.openRelayed("/sse/channels/bp", upstream: upstream, channel: "channels/bp")
                let data = String(repeating: "x", count: 1024)
                let total = 20_000
                let flood = Task {
                    try await upstream.request(
                        "POST", "/__admin/streams/channels/bp/events", body: #"{"data":"\#(data)","count":\#(total)}"#)
                }
                // The client reads nothing: the proxy stops reading its upstream, whose flood
                // then waits at its reader's pace, far short of its end.
                try await Task.sleep(for: .milliseconds(1500))
                let stream = upstream.app.streams.existingStream(named: "channels/bp")
                let logged = Int(stream?.snapshot.lastEventId ?? "0") ?? 0
                #expect(logged < total / 2, "the upstream logged \(logged) of \(total) for a reader that read none")
                // Reading again: every event arrives, in order, and the flood ends.
                var ids: [Int] = []
                var parser = SSEParser()
                let deadline = ContinuousClock.now + .seconds(60)
                while ids.count < total, ContinuousClock.now < deadline {
                    let taken = client.takeBuffer()
                    if !taken.isEmpty {
                        for case .event(let event) in parser.feed(taken) { ids.append(Int(event.id ?? "") ?? -1) }
                    } else {
                        _ = try? await client.receive(timeout: .milliseconds(200))
                    }
                }
                #expect(ids.count == total)
                #expect(ids == Array(ids.sorted()), "out of order")
                #expect(Set(ids).count == ids.count, "duplicates")
                #expect(try await flood.value.status == 200)
            }
        }
    }
}
