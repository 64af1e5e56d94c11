import Foundation
import MockBackend
import MockBackendAPI
import MockBackendHTTP
import MockBackendTesting
import ServerSentEvents
import Testing

/// Proxy mode against a second mock as upstream: requests and answers pass with the
/// proxy's header rules, event streams are relayed event by event as streams of the mock
/// (listed, journaled, pushable, disconnectable), and endings pass both ways.
@Suite("Proxy: relay")
struct ProxyRelayTests {
    @Test func aRequestGoesUpstreamWithForwardingFieldsAndItsAnswerComesBack() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let login = try await proxy.request(
                "POST", "/v1/player/legislation/login", headers: ["X-Custom": "kept", "Connection": "close, X-Custom"],
                body: #"{"username":"demo","password":"demo1234"}"#)
            #expect(login.status == 200, "\(login.text)")
            #expect(login.text.contains(#""sessionId""#))
            #expect(login.headers["Set-Cookie"]?.hasPrefix("sessionId=") == true)
            #expect(login.headers["Via"] == "1.1 mockbackend")
            let seen = try #require(upstream.app.requests.entries().first)
            #expect(seen.path == "/v1/player/legislation/login")
            let headers = Dictionary(seen.headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
            #expect(headers["x-forwarded-for"] == "127.0.0.1")
            #expect(headers["x-forwarded-proto"] == "http")
            #expect(headers["x-forwarded-host"] == "127.0.0.1:\(proxy.port)")
            #expect(headers["via"] == "1.1 mockbackend")
            #expect(headers["host"] == "127.0.0.1:\(upstream.port)")
            // Named by Connection: hop-by-hop, so not passed on.
            #expect(headers["x-custom"] == nil)
            let journaled = try #require(proxy.app.requests.entries().first)
            #expect(journaled.proxied == true)
            #expect(journaled.upstreamStatus == 200)
            #expect(journaled.upstreamLatencyMs != nil)
        }
    }

    @Test func builtInBackendsAreOffUnlessNamedAndTheAdminAPIStaysLocal() async throws {
        try await withProxiedUpstream(proxySettings(backends: [.workflows])) { upstream, proxy in
            // /health is the upstream's: the proxy's own is off in proxy mode.
            #expect(try await proxy.request("GET", "/health").headers["Via"] == "1.1 mockbackend")
            // Named: the workflow API answers here.
            let workflows = try await proxy.request("GET", "/api/sessions")
            #expect(workflows.headers["Via"] == nil)
            let admin = try await proxy.request("GET", "/__admin/health")
            #expect(admin.status == 200)
            #expect(admin.headers["Via"] == nil)
            #expect(try await proxy.request("GET", "/__admin/openapi.yaml").status == 200)
            #expect(try await proxy.request("GET", "/__admin/dashboard/").text.contains("<html"))
            #expect(!upstream.app.requests.entries().contains { $0.path.hasPrefix("/__admin") })
        }
    }

    @Test func anEventStreamIsRelayedEventByEventAsAStreamOfTheMock() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let client = try await proxy.openRelayed(
                "/sse/channels/live", headers: "Last-Event-ID: 41\r\n", upstream: upstream, channel: "channels/live")
            #expect(String(decoding: client.buffer, as: UTF8.self).contains("Via: 1.1 mockbackend"))
            upstream.publish("channels/live", "first", id: "42")
            try await client.receive(untilContains: "data: first")
            upstream.publish("channels/live", "second", id: "43")
            try await client.receive(untilContains: "data: second")
            // Listed and journaled as a proxied stream, with the upstream's ids.
            let listed = try await proxy.admin.streams.list()
            #expect(listed.contains { $0.name == "proxy/sse/channels/live" && $0.subscribers.count == 1 })
            let record = try #require(proxy.app.streams.journal.snapshots(stream: "proxy/sse/channels/live").first)
            #expect(record.proxied == true)
            #expect(record.upstreamIds == ["42", "43"])
            // The client's Last-Event-ID went upstream.
            let upstreamRecord = try #require(upstream.app.streams.journal.snapshots(stream: "channels/live").first)
            #expect(upstreamRecord.lastEventId == "41")
        }
    }

    @Test func aPushIsInjectedBetweenUpstreamEventsWithoutAnID() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let client = try await proxy.openRelayed("/sse/channels/push", upstream: upstream, channel: "channels/push")
            upstream.publish("channels/push", "from upstream", id: "7")
            try await client.receive(untilContains: "data: from upstream")
            let pushed = try await proxy.request(
                "POST", "/__admin/streams/proxy/sse/channels/push/events", body: #"{"event":"note","data":"injected"}"#)
            #expect(pushed.status == 200, "\(pushed.text)")
            #expect(pushed.text.contains(#""delivered":1"#))
            try await client.receive(untilContains: "data: injected")
            upstream.publish("channels/push", "after", id: "8")
            try await client.receive(untilContains: "data: after")
            let body = String(decoding: client.streamedBody, as: UTF8.self)
            #expect(body.contains("event: note\ndata: injected\n\n"))
            #expect(!body.contains("id: \n"))
            let injected = body.components(separatedBy: "\n\n").first { $0.contains("injected") } ?? ""
            #expect(!injected.contains("id:"))
            #expect(eventData(client.streamedBody) == ["from upstream", "injected", "after"])
        }
    }

    @Test func aClientThatLeavesEndsItsUpstreamRequest() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let client = try await proxy.openRelayed("/sse/channels/gone", upstream: upstream, channel: "channels/gone")
            client.close()
            #expect(
                await eventually { upstream.app.streams.existingStream(named: "channels/gone")?.subscriberCount == 0 })
            #expect(await eventually { proxy.app.streams.existingStream(named: "proxy/sse/channels/gone") == nil })
        }
    }

    @Test(arguments: ["graceful", "fin", "reset"])
    func anUpstreamEndingReachesTheClientTheSameWay(mode: String) async throws {
        try await withProxiedUpstream { upstream, proxy in
            let client = try await proxy.openRelayed("/sse/channels/end", upstream: upstream, channel: "channels/end")
            upstream.publish("channels/end", "last")
            try await client.receive(untilContains: "data: last")
            let body =
                switch mode {
                case "graceful": #"{"graceful":true}"#
                case "reset": #"{"reset":true}"#
                default: "{}"
                }
            _ = try await upstream.request("POST", "/__admin/streams/channels/end/disconnect", body: body)
            switch mode {
            case "graceful":
                try await client.receive(untilContains: "\r\n0\r\n\r\n")
            case "reset":
                #expect(await client.waitForClose() == .reset)
            default:
                #expect(await client.waitForClose() == .fin)
                #expect(!String(decoding: client.buffer, as: UTF8.self).hasSuffix("\r\n0\r\n\r\n"))
            }
        }
    }

    @Test func anAdminDisconnectActsOnAProxiedStream() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let client = try await proxy.openRelayed("/sse/channels/cut", upstream: upstream, channel: "channels/cut")
            let answer = try await proxy.request(
                "POST", "/__admin/streams/proxy/sse/channels/cut/disconnect", body: #"{"reset":true}"#)
            #expect(answer.text.contains(#""disconnected":1"#))
            #expect(await client.waitForClose() == .reset)
            // And the upstream request ended with it.
            #expect(
                await eventually { upstream.app.streams.existingStream(named: "channels/cut")?.subscriberCount == 0 })
        }
    }

    @Test func aLargeBodyPassesWhole() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let data = String(repeating: "0123456789abcdef", count: 256 * 1024 / 16)
            let stub = try await upstream.request(
                "POST", "/__admin/mappings",
                body: #"{"request":{"urlPath":"/big"},"response":{"status":200,"body":"\#(data)"}}"#)
            #expect(stub.status == 201)
            let answer = try await proxy.request("GET", "/big")
            #expect(answer.status == 200)
            #expect(answer.body.count == data.utf8.count)
            #expect(answer.text == data)
        }
    }
}
