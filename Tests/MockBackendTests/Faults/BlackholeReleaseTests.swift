import Foundation
import MockBackend
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// A blackholed connection sends nothing and answers nothing, but it stays the server's to
/// end: a subscriber until an admin disconnect, the server's stop or its client's close,
/// however its stream ends meanwhile; and a client that gives up is released at once.
@Suite("Blackholed connections end as they should")
struct BlackholeReleaseTests {
    private func addFault(_ server: RunningServer, path: String, _ fault: String) async throws {
        let added = try await server.request(
            "POST", "/__admin/faults", body: #"{"match":{"path":"\#(path)"},"fault":\#(fault)}"#)
        #expect(added.status == 201, "\(added.text)")
    }

    /// Channel `name` opened under a blackhole after `afterEvents` events, once the
    /// connection is its subscriber: the client, and the stream.
    private func openBlackholedChannel(_ server: RunningServer, _ name: String, afterEvents: Int) async throws
        -> (RawHTTPClient, EventStream)
    {
        try await addFault(
            server, path: "/sse/channels/\(name)", #"{"kind":"blackhole","afterEvents":\#(afterEvents)}"#)
        let client = try server.connect()
        try client.send("GET /sse/channels/\(name) HTTP/1.1\r\nHost: t\r\n\r\n")
        try await client.receive(untilContains: "\r\n\r\n")
        let stream = server.app.streams.stream(named: "channels/\(name)")
        #expect(await eventually { stream.subscriberCount == 1 })
        return (client, stream)
    }

    /// The stream finishes while its connection is blackholed: the connection is still its
    /// subscriber, and a reset disconnect ends it with RST.
    @Test func aBlackholedConnectionOutlivesItsStreamsFinishUntilAnAdminDisconnect() async throws {
        try await withRunningServer { server in
            let (client, stream) = try await openBlackholedChannel(server, "hole", afterEvents: 1)
            stream.publish(ServerSentEvent(data: "one"))
            stream.publish(ServerSentEvent(data: "two"))
            try await client.receive(untilContains: "data: one\n\n")
            stream.finish()
            #expect(await client.waitForClose(timeout: .milliseconds(300)) == .stillOpen)
            #expect(stream.subscriberCount == 1)
            let disconnect = try await server.request(
                "POST", "/__admin/streams/channels/hole/disconnect", body: #"{"reset":true}"#)
            #expect(disconnect.text.contains(#""disconnected":1"#), "\(disconnect.text)")
            #expect(await client.waitForClose() == .reset)
            #expect(
                await eventually {
                    server.app.streams.journal.snapshots(stream: "channels/hole").first?.endReason == "admin"
                })
            #expect(server.app.streams.journal.snapshots(stream: "channels/hole").first?.deliveredIds == ["1"])
        }
    }

    /// A client that leaves a blackholed event stream is noticed and its connection released.
    @Test func aClientLeavingABlackholedStreamIsReleased() async throws {
        try await withRunningServer { server in
            let (client, stream) = try await openBlackholedChannel(server, "gone", afterEvents: 0)
            client.close()
            #expect(await eventually { stream.subscriberCount == 0 })
            #expect(await eventually { server.app.statistics.openConnections == 0 })
            #expect(
                server.app.streams.journal.snapshots(stream: "channels/gone").first?.endReason == "client_closed")
        }
    }

    /// The same on the V1 progress WebSocket.
    @Test func aClientLeavingABlackholedWebSocketIsReleased() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        try await withRunningServer(configuration) { server in
            let csv = "title,author\r\nDune,Herbert\r\n"
            let accepted = try await upload(server, csv)
            let object = try JSONSerialization.jsonObject(with: Data(accepted.body)) as? [String: Any]
            let job = try #require(object?["jobId"] as? String)
            try await addFault(server, path: "/ws/progress", #"{"kind":"blackhole","afterEvents":0}"#)
            let client = try await RawWebSocketClient.connect(port: server.port, path: "/ws/progress?jobId=\(job)")
            let stream = try #require(server.app.streams.existingStream(named: "imports/\(job)"))
            #expect(await eventually { stream.subscriberCount == 1 })
            client.close()
            #expect(await eventually { stream.subscriberCount == 0 })
            #expect(await eventually { server.app.statistics.openConnections == 0 })
        }
    }
}
