import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// Opens a stream with a raw client and returns it once the head has arrived.
private func openStream(_ server: RunningServer, _ target: String, headers: String = "") async throws -> RawHTTPClient {
    let client = try server.connect()
    try client.send("GET \(target) HTTP/1.1\r\nHost: t\r\n\(headers)\r\n")
    try await client.receive(untilContains: "\r\n\r\n")
    return client
}

private func post(_ server: RunningServer, _ path: String, _ body: String) async throws -> RawResponse {
    let client = try server.connect()
    try client.send("POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    return try await client.readResponse()
}

private func text(_ client: RawHTTPClient) -> String { String(decoding: client.buffer, as: UTF8.self) }

@Suite("SSE streams and the stream admin API")
struct StreamRoutesTests {
    /// The user-info stream over a socket: chunked, no heartbeat however short the
    /// interval, closed by the server after its idle timeout.
    @Test func userInfoStreamHasNoHeartbeatAndClosesWhenIdle() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.heartbeatInterval = .milliseconds(50)
        configuration.player.userInfoIdleTimeout = .milliseconds(500)
        try await withRunningServer(configuration) { server in
            let session = try await login(server)
            let stream = try server.connect()
            let start = ContinuousClock.now
            try stream.send(
                "GET /v2/player/7000001/information/updates HTTP/1.1\r\nHost: t\r\nX-SessionId: \(session.sessionId)\r\n\r\n"
            )
            let response = try await stream.readResponse(timeout: .seconds(3))
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .milliseconds(450))
            #expect(!response.text.contains("keep-alive"))
            #expect(response.headers["Transfer-Encoding"] == "chunked")
        }
    }

    @Test func flushesHeadersAtOnceOnAQuietStream() async throws {
        try await withRunningServer { server in
            let client = try await openStream(server, "/sse/channels/quiet")
            let head = text(client)
            #expect(head.hasPrefix("HTTP/1.1 200 OK"))
            #expect(head.contains("Content-Type: text/event-stream; charset=utf-8"))
            #expect(head.contains("Cache-Control: no-cache"))
            #expect(head.contains("X-Accel-Buffering: no"))
            #expect(head.contains("Transfer-Encoding: chunked"))
        }
    }

    @Test func sendsHeartbeats() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.heartbeatInterval = .milliseconds(100)
        try await withRunningServer(configuration) { server in
            let client = try await openStream(server, "/sse/channels/beat")
            try await client.receive(untilContains: ": keep-alive\n\n", timeout: .seconds(2))
        }
    }

    @Test func sendsAPaddingPreludeOfTheRequestedSize() async throws {
        try await withRunningServer { server in
            let client = try await openStream(server, "/sse/channels/padded?padding=2048")
            try await client.receive(untilContains: "  \n\n")
            let body = text(client).components(separatedBy: "\r\n\r\n")[1]
            // One chunk: "800\r\n" + 2048 bytes.
            #expect(body.hasPrefix("800\r\n:"))
            let bad = try await server.connect().get("/sse/channels/padded?padding=lots")
            #expect(bad.status == 400)
            #expect(bad.text.contains("INVALID_PADDING"))
        }
    }

    @Test func replaysAfterLastEventIDFromHeaderOrQuery() async throws {
        try await withRunningServer { server in
            let stream = server.app.streams.stream(named: "channels/replay")
            for index in 1...4 { stream.publish(ServerSentEvent(data: "e\(index)")) }
            let byHeader = try await openStream(server, "/sse/channels/replay", headers: "Last-Event-ID: 2\r\n")
            try await byHeader.receive(untilContains: "data: e4")
            #expect(!text(byHeader).contains("data: e2"))
            #expect(text(byHeader).contains("data: e3"))
            let byQuery = try await openStream(server, "/sse/channels/replay?lastEventId=3")
            try await byQuery.receive(untilContains: "data: e4")
            #expect(!text(byQuery).contains("data: e3"))
        }
    }

    @Test func anExpiredIDGetsResetThenTheRetainedEvents() async throws {
        try await withRunningServer { server in
            let stream = server.app.streams.stream(named: "channels/short", settings: .init(retention: 3))
            for index in 1...10 { stream.publish(ServerSentEvent(data: "e\(index)")) }
            let client = try await openStream(server, "/sse/channels/short", headers: "Last-Event-ID: 2\r\n")
            try await client.receive(untilContains: "data: e10")
            let body = text(client)
            #expect(
                body.contains(
                    "event: reset\ndata: {\"reason\":\"retention\",\"lastEventId\":\"2\",\"oldestRetainedId\":\"8\"}"))
            #expect(body.contains("data: e8"))
            #expect(!body.contains("data: e7"))
        }
    }

    @Test func anUnknownIDGetsACommentAndAReplayFromTheStart() async throws {
        try await withRunningServer { server in
            let stream = server.app.streams.stream(named: "channels/unknown")
            stream.publish(ServerSentEvent(data: "first"))
            let client = try await openStream(server, "/sse/channels/unknown", headers: "Last-Event-ID: 999\r\n")
            try await client.receive(untilContains: "data: first")
            #expect(
                text(client).contains(": Last-Event-ID 999 was never issued by this stream; replaying from the start"))
        }
    }

    @Test func aFinishedStreamWithNothingAfterTheIDIs204() async throws {
        try await withRunningServer { server in
            let stream = server.app.streams.stream(named: "channels/done")
            stream.publish(ServerSentEvent(data: "a"))
            stream.publish(ServerSentEvent(data: "b"))
            let open = try await openStream(server, "/sse/channels/done")
            stream.finish()
            // An open subscriber gets a clean end.
            let response = try await open.readResponse()
            #expect(response.text.contains("data: b"))
            let caughtUp = try await server.connect().get("/sse/channels/done", headers: "Last-Event-ID: 2\r\n")
            #expect(caughtUp.status == 204)
            let behind = try await server.connect().get("/sse/channels/done", headers: "Last-Event-ID: 1\r\n")
            #expect(behind.status == 200)
            #expect(behind.text.contains("data: b"))
            #expect(!behind.text.contains("data: a"))
        }
    }

    @Test func broadcastReachesEverySubscriberInOrder() async throws {
        try await withRunningServer { server in
            var clients: [RawHTTPClient] = []
            for _ in 0..<20 { clients.append(try await openStream(server, "/sse/channels/fanout")) }
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "channels/fanout")?.snapshot.subscribers.count == 20
                })
            for index in 1...5 {
                try await server.admin.streams.push(to: "channels/fanout", data: .string("n\(index)"))
            }
            for client in clients {
                try await client.receive(untilContains: "data: n5")
                var parser = SSEParser()
                let data = parser.feed(client.streamedBody).compactMap { output -> String? in
                    if case .event(let event) = output { event.data } else { nil }
                }
                #expect(data == ["n1", "n2", "n3", "n4", "n5"])
            }
        }
    }

    @Test func adminListsStreamsAndConnections() async throws {
        try await withRunningServer { server in
            let client = try await openStream(server, "/sse/channels/listed", headers: "X-Client-Id: lister\r\n")
            _ = client
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "channels/listed")?.snapshot.subscribers.count == 1
                })
            let streams = try await server.admin.streams.list()
            #expect(streams.first { $0.name == "channels/listed" }?.subscribers.count == 1)
            let records = try await server.admin.streams.connections(stream: "channels/listed")
            #expect(records.count == 1)
            #expect(records[0].client == "lister")
            #expect(records[0].requestHeaders["X-Client-Id"] == "lister")
            #expect(records[0].endedAt == nil)
        }
    }

    @Test func adminPushToOneConnectionAndDisconnect() async throws {
        try await withRunningServer { server in
            let first = try await openStream(server, "/sse/channels/target")
            let second = try await openStream(server, "/sse/channels/target")
            let stream = try #require(server.app.streams.existingStream(named: "channels/target"))
            #expect(await eventually { stream.snapshot.subscribers.count == 2 })
            let target = stream.snapshot.subscribers[0].connection
            try await server.admin.streams.push(to: "channels/target", data: .string("only you"), connection: target)
            try await first.receive(untilContains: "only you")
            #expect(!text(second).contains("only you"))
            let missing = try await post(
                server, "/__admin/streams/channels/target/events", #"{"data":"x","connection":999999}"#)
            #expect(missing.status == 404)
            #expect(missing.text.contains("CONNECTION_NOT_FOUND"))

            #expect(try await server.admin.streams.disconnect("channels/target", mode: .reset) == 2)
            #expect(await first.waitForClose() == .reset)
            #expect(await second.waitForClose() == .reset)
        }
    }

    @Test(
        "admin push refuses bad bodies with a problem naming the field",
        arguments: [
            ("{nope", "not valid JSON"),
            (#"{"event":"x"}"#, "'data'"),
            (#"{"data":"x","event":5}"#, "'event'"),
            (#"{"data":"x","retry":-5}"#, "'retry'"),
            (#"{"data":"x","retry":"soon"}"#, "'retry'"),
            (#"{"data":"x","event":"two\nlines"}"#, "'event'"),
            (#"{"data":"x","connection":"abc"}"#, "'connection'"),
            (#"{"data":"x","count":0}"#, "'count'"),
            (#"{"data":"x","count":2,"id":"a"}"#, "'count'"),
        ])
    func refusesBadPushes(_ body: String, mentions: String) async throws {
        try await withRunningServer { server in
            let response = try await post(server, "/__admin/streams/channels/bad/events", body)
            #expect(response.status == 400)
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.text.contains("INVALID_BODY"))
            #expect(response.text.contains(mentions))
        }
    }

    @Test func adminPushCanFloodAStream() async throws {
        try await withRunningServer { server in
            let client = try await openStream(server, "/sse/channels/flooded")
            let pushed = try await server.admin.streams.push(to: "channels/flooded", data: .string("x"), count: 500)
            #expect(pushed.id == "500")
            try await client.receive(untilContains: "id: 500\n")
            var parser = SSEParser()
            let ids = parser.feed(client.streamedBody).compactMap { output -> String? in
                if case .event(let event) = output { event.id } else { nil }
            }
            #expect(ids == (1...500).map(String.init))
        }
    }

    @Test func unknownStreamIs404() async throws {
        try await withRunningServer { server in
            let response = try await post(server, "/__admin/streams/imports/nope/events", #"{"data":"x"}"#)
            #expect(response.status == 404)
            #expect(response.text.contains("STREAM_NOT_FOUND"))
            let disconnect = try await post(server, "/__admin/streams/nope/disconnect", "")
            #expect(disconnect.status == 404)
        }
    }
}
