import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import Testing

/// A WebSocket upgrade through the proxy: the upstream's messages reach the client, the
/// proxied socket is a stream of the mock (listed, pushable, disconnectable), faults count
/// its messages, and a close on one side closes the other.
@Suite("Proxy: WebSocket")
struct ProxyWebSocketTests {
    /// An import job on the upstream, paused so that only pushes send messages.
    private func pausedJob(on upstream: RunningServer) async throws -> String {
        let accepted = try await upload(upstream, booksCSV(rows: 2000))
        #expect(accepted.status == 202)
        let object = try JSONSerialization.jsonObject(with: Data(accepted.body)) as? [String: Any]
        let job = try #require(object?["jobId"] as? String)
        #expect(try await upstream.request("POST", "/__admin/imports/\(job)/pause", body: "{}").status == 200)
        return job
    }

    private func push(_ server: RunningServer, _ stream: String, _ json: String) async throws {
        let answer = try await server.request("POST", "/__admin/streams/\(stream)/events", body: #"{"data":\#(json)}"#)
        #expect(answer.status == 200, "\(answer.text)")
    }

    /// Reads text messages until one whose payload contains `text`.
    private func read(_ client: RawWebSocketClient, until text: String) async throws -> [String] {
        var seen: [String] = []
        while !(seen.last?.contains(text) ?? false) {
            let frame = try await client.readFrameSkippingPings(timeout: .seconds(10))
            guard frame.opcode == 1 else {
                Issue.record("expected a text message with \(text), got \(frame); before: \(seen)")
                return seen
            }
            seen.append(String(decoding: frame.payload, as: UTF8.self))
        }
        return seen
    }

    @Test func upstreamMessagesPushesAndAnAdminDisconnectReachTheClient() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let job = try await pausedJob(on: upstream)
            let client = try await RawWebSocketClient.connect(port: proxy.port, path: "/ws/progress?jobId=\(job)")
            #expect(client.handshake?.status == 101)
            #expect(
                await eventually { upstream.app.streams.existingStream(named: "imports/\(job)")?.subscriberCount == 1 })
            try await push(upstream, "imports/\(job)", #"{"seq":1}"#)
            _ = try await read(client, until: #""seq":1"#)
            // A stream of the mock: listed, and a push reaches the socket as a message.
            let listed = try await proxy.admin.streams.list()
            let stream = try #require(listed.first { $0.name == "proxy/ws/progress" })
            #expect(stream.subscribers.first?.protocol == "websocket")
            try await push(proxy, "proxy/ws/progress", #"{"note":"from the mock"}"#)
            let pushed = try await read(client, until: "from the mock")
            #expect(pushed.last?.contains(#""type":"message""#) == true)
            try await push(upstream, "imports/\(job)", #"{"seq":2}"#)
            _ = try await read(client, until: #""seq":2"#)
            // An admin's graceful disconnect: close 1001 to the client, and the upstream
            // socket goes with it.
            let answer = try await proxy.request(
                "POST", "/__admin/streams/proxy/ws/progress/disconnect", body: #"{"graceful":true}"#)
            #expect(answer.text.contains(#""disconnected":1"#))
            let close = try await client.readFrameSkippingPings()
            #expect(close.opcode == 8)
            #expect(close.closeCode == 1001)
            try client.send(.close(code: 1001))
            #expect(
                await eventually { upstream.app.streams.existingStream(named: "imports/\(job)")?.subscriberCount == 0 })
            let record = try #require(proxy.app.requests.entries().first { $0.path == "/ws/progress" })
            #expect(record.proxied == true)
            #expect(record.upstreamStatus == 101)
        }
    }

    @Test func aMessageCountingFaultCountsTheUpstreamsMessages() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let job = try await pausedJob(on: upstream)
            try await proxy.admin.faults.add(.dropAfterEvents(2, reset: false), match: .init(path: "/ws/progress"))
            let client = try await RawWebSocketClient.connect(port: proxy.port, path: "/ws/progress?jobId=\(job)")
            // The messages counted are the upstream's: its replay of the job's history
            // first (`started`, and any progress before the pause), then the pushes.
            for seq in 1...4 { try await push(upstream, "imports/\(job)", #"{"seq":\#(seq)}"#) }
            let (frames, end) = await client.readUntilClosed()
            #expect(end == .fin)
            #expect(frames.filter { $0.opcode == 1 }.count == 2, "\(frames)")
        }
    }

    @Test func theUpstreamsCloseClosesTheClientWithItsCode() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let job = try await pausedJob(on: upstream)
            let client = try await RawWebSocketClient.connect(port: proxy.port, path: "/ws/progress?jobId=\(job)")
            #expect(
                await eventually { upstream.app.streams.existingStream(named: "imports/\(job)")?.subscriberCount == 1 })
            try await upstream.admin.imports.complete(job)
            let received = try await read(client, until: #""type":"complete""#)
            #expect(!received.isEmpty)
            let close = try await client.readFrameSkippingPings()
            #expect(close.opcode == 8)
            #expect(close.closeCode == 1000)
        }
    }

    @Test func anUpstreamThatRefusesTheUpgradeIsAnsweredAsItAnswered() async throws {
        try await withProxiedUpstream { _, proxy in
            let client = try proxy.connect()
            try client.send(RawWebSocketClient.upgradeRequest(path: "/ws/progress?jobId=import_none"))
            let response = try await client.readResponse()
            #expect(response.status == 404)
            #expect(response.headers["Via"] == "1.1 mockbackend")
        }
    }
}

extension ProxyWebSocketTests {
    @Test func anUpgradeToAnotherProtocolIs501() async throws {
        try await withProxiedUpstream { upstream, proxy in
            let client = try proxy.connect()
            try client.send("GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 501)
            #expect(response.text.contains("PROXY_UPGRADE_UNSUPPORTED"))
            #expect(upstream.app.requests.entries().isEmpty)
        }
    }
}
