import Foundation
import MockBackend
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// Faults that count events count events, however the server batched them into writes,
/// and act where the count says, over real sockets.
@Suite("Faults count events, not writes")
struct FaultEventCountingTests {
    private func addFault(_ server: RunningServer, _ json: String) async throws {
        let response = try await server.request("POST", "/__admin/faults", body: json)
        #expect(response.status == 201, "\(response.text)")
    }

    private func openChannel(_ server: RunningServer, _ name: String, lastEventID: String? = nil) async throws
        -> RawHTTPClient
    {
        let client = try server.connect()
        let resume = lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? ""
        try client.send("GET /sse/channels/\(name) HTTP/1.1\r\nHost: t\r\n\(resume)\r\n")
        try await client.receive(untilContains: "\r\n\r\n")
        return client
    }

    private func ids(_ client: RawHTTPClient) -> [String] {
        sseEvents(client.streamedBody).compactMap(\.id)
    }

    @Test func dropAfterEventsCountsTheEventsOfAFlood() async throws {
        try await withRunningServer { server in
            try await addFault(
                server, #"{"match":{"path":"/sse/channels/flood"},"fault":{"kind":"drop_after_events","events":3}}"#)
            let client = try await openChannel(server, "flood")
            #expect(
                await eventually { server.app.streams.existingStream(named: "channels/flood")?.subscriberCount == 1 })
            let flood = try await server.request(
                "POST", "/__admin/streams/channels/flood/events", body: #"{"data":"x","count":10}"#)
            #expect(flood.status == 200)
            #expect(await client.waitForClose() == .fin)
            #expect(ids(client) == ["1", "2", "3"])
        }
    }

    @Test func dropAfterEventsCountsTheEventsOfAReplay() async throws {
        try await withRunningServer { server in
            let stream = server.app.streams.stream(named: "channels/replayed")
            for index in 1...10 { stream.publish(ServerSentEvent(data: "e\(index)")) }
            try await addFault(
                server,
                #"{"match":{"path":"/sse/channels/replayed"},"fault":{"kind":"drop_after_events","events":4}}"#)
            let client = try await openChannel(server, "replayed", lastEventID: "2")
            #expect(await client.waitForClose() == .fin)
            #expect(ids(client) == ["3", "4", "5", "6"])
        }
    }

    @Test func cutInsideEventCutsTheEventOfAFlood() async throws {
        try await withRunningServer { server in
            try await addFault(
                server,
                #"{"match":{"path":"/sse/channels/cutflood"},"fault":{"kind":"cut_inside_event","events":3,"bytes":4}}"#
            )
            let client = try await openChannel(server, "cutflood")
            #expect(
                await eventually { server.app.streams.existingStream(named: "channels/cutflood")?.subscriberCount == 1 }
            )
            _ = try await server.request(
                "POST", "/__admin/streams/channels/cutflood/events", body: #"{"data":"x","count":10}"#)
            #expect(await client.waitForClose() == .fin)
            #expect(String(decoding: client.buffer, as: UTF8.self).hasSuffix("id: 2\ndata: x\n\nid: "))
        }
    }

    @Test func stallAfterEventsStallsAfterThatEvent() async throws {
        try await withRunningServer { server in
            let window = 1500
            try await addFault(
                server,
                #"{"match":{"path":"/sse/channels/stall2"},"fault":{"kind":"stall","afterEvents":2,"ms":\#(window)}}"#)
            let client = try await openChannel(server, "stall2")
            let reads = TimedReads(client)
            let stream = try #require(server.app.streams.existingStream(named: "channels/stall2"))
            #expect(await eventually { stream.subscriberCount == 1 })
            for index in 1...4 { stream.publish(ServerSentEvent(data: "e\(index)")) }
            // Judged by when the bytes reached the client's socket, not by when a busy
            // machine let the test look.
            let second = try #require(await reads.waitFor("data: e2"))
            let third = try #require(await reads.waitFor("data: e3"))
            let fourth = try #require(await reads.waitFor("data: e4"))
            #expect(third - second >= .milliseconds(window - 100))
            #expect(fourth >= third)
            #expect(reads.closedAt == nil)
            let rules = try await server.request("GET", "/__admin/faults")
            #expect(rules.text.contains(#""fired":1"#))
        }
    }

    @Test func blackholeSendsNothingAnswersNothingAndNeverCloses() async throws {
        try await withRunningServer { server in
            try await addFault(
                server, #"{"match":{"path":"/sse/channels/hole"},"fault":{"kind":"blackhole","afterEvents":1}}"#)
            let client = try await openChannel(server, "hole")
            let stream = try #require(server.app.streams.existingStream(named: "channels/hole"))
            #expect(await eventually { stream.subscriberCount == 1 })
            stream.publish(ServerSentEvent(data: "seen"))
            try await client.receive(untilContains: "data: seen")
            let received = client.buffer.count
            for index in 1...50 { stream.publish(ServerSentEvent(data: "lost \(index)")) }
            // What the client sends is not answered (a request after this one would be).
            try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await client.waitForClose(timeout: .milliseconds(500)) == .stillOpen)
            #expect(client.buffer.count == received)
            // Not even the end of the body goes out: a graceful end leaves it as it is, still
            // a subscriber of its stream.
            _ = try await server.request(
                "POST", "/__admin/streams/channels/hole/disconnect", body: #"{"graceful":true}"#)
            #expect(await client.waitForClose(timeout: .milliseconds(300)) == .stillOpen)
            #expect(client.buffer.count == received)
            #expect(stream.subscriberCount == 1)
            // Only a broken connection ends it (or the server stopping, or the client leaving).
            _ = try await server.request("POST", "/__admin/streams/channels/hole/disconnect")
            #expect(await client.waitForClose() == .fin)
        }
    }

    @Test func aFaultsDelayAddsToAStubsDelay() async throws {
        try await withRunningServer { server in
            let stub = try await server.request(
                "POST", "/__admin/mappings",
                body:
                    #"{"request":{"method":"GET","url":"/slow"},"response":{"status":200,"body":"ok","fixedDelayMilliseconds":300}}"#
            )
            #expect(stub.status == 201)
            try await addFault(server, #"{"match":{"path":"/slow"},"fault":{"kind":"delay","ms":300}}"#)
            let start = ContinuousClock.now
            let response = try await server.request("GET", "/slow")
            #expect(response.status == 200)
            #expect(response.text == "ok")
            #expect(ContinuousClock.now - start >= .milliseconds(590))
        }
    }
}
