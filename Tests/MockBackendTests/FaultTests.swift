import Foundation
import MockBackend
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// Opens a channel stream (HTTP/1.1 unless `http10`) and waits until it is subscribed.
private func openChannel(_ server: RunningServer, _ name: String, http10: Bool = false) async throws -> RawHTTPClient {
    let client = try server.connect()
    try client.send("GET /sse/channels/\(name) HTTP/\(http10 ? "1.0" : "1.1")\r\nHost: t\r\n\r\n")
    _ = await eventually {
        server.app.streams.existingStream(named: "channels/\(name)")?.snapshot.subscribers.count == 1
    }
    return client
}

/// Opens a channel stream over whatever `server` speaks and waits until it is subscribed.
private func openChannelStream(_ server: some AppUnderTest, _ name: String) async throws -> any StreamClient {
    let stream = try await server.openStream("/sse/channels/\(name)")
    _ = await eventually {
        server.app.streams.existingStream(named: "channels/\(name)")?.snapshot.subscribers.count == 1
    }
    return stream
}

private func publish(_ server: some AppUnderTest, _ name: String, _ data: String) {
    server.app.streams.stream(named: "channels/\(name)").publish(ServerSentEvent(data: data))
}

private func eventsIn(_ bytes: [UInt8]) -> [String] {
    var parser = SSEParser()
    return parser.feed(bytes).compactMap { if case .event(let event) = $0 { event.data } else { nil } }
}

@Suite("Faults")
struct FaultTests {
    @Test(arguments: Transport.overSockets)
    func statusAnswersInPlaceOfTheRouteForItsTimes(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            try await server.admin.faults.add(
                .status(503, body: nil, retryAfter: 2), match: .init(method: "GET", path: "/health"), times: 1)
            let refused = try await server.request("GET", "/health")
            #expect(refused.status == 503)
            #expect(refused.headers["Retry-After"] == "2")
            #expect(refused.text.contains("FAULT_INJECTED"))
            #expect(try await server.request("GET", "/health").status == 200)
            let journal = try await server.admin.requests.list(path: "/health")
            #expect(journal.contains { $0.fault == "status fault_1" })
            let rules = try await server.admin.faults.list()
            #expect(rules.map(\.fired) == [1])
            #expect(rules.map(\.times) == [0])
        }
    }

    @Test(arguments: Transport.overSockets)
    func forbiddenAnswersTheBackendBodyWithoutExpiring(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let session = try await login(server)
            try await server.admin.faults.add(.forbidden, match: .init(path: "/v2/player/*/balance"), times: 1)
            let headers = ["X-SessionId": session.sessionId]
            try expectPlayerError(
                try await server.request("GET", "/v2/player/7000001/balance", headers: headers), status: 403,
                "Session expired")
            #expect(try await server.request("GET", "/v2/player/7000001/balance", headers: headers).status == 200)
        }
    }

    @Test(arguments: Transport.overSockets)
    func delayHoldsTheHead(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            try await server.admin.faults.add(.delay(milliseconds: 300), match: .init(path: "/health"))
            let start = ContinuousClock.now
            #expect(try await server.request("GET", "/health").status == 200)
            #expect(ContinuousClock.now - start >= .milliseconds(290))
        }
    }

    @Test(arguments: Transport.overSockets)
    func latencyHoldsEveryWrite(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            try await server.admin.faults.add(.latency(milliseconds: 100), match: .init(path: "/sse/channels/slow"))
            let start = ContinuousClock.now
            let client = try await openChannelStream(server, "slow")
            for index in 1...3 { publish(server, "slow", "e\(index)") }
            try await client.receive(untilContains: "data: e3")
            // The head and three events, each a write held 100 ms.
            #expect(ContinuousClock.now - start >= .milliseconds(390))
        }
    }

    @Test(arguments: Transport.overSockets, [false, true])
    func dropAfterEventsClosesAfterTheNthEvent(over transport: Transport, reset: Bool) async throws {
        try await withApp(over: transport) { server in
            try await server.admin.faults.add(
                .dropAfterEvents(2, reset: reset), match: .init(path: "/sse/channels/drop"))
            let client = try await openChannelStream(server, "drop")
            for index in 1...3 { publish(server, "drop", "e\(index)") }
            let outcome = await client.waitForClose(timeout: .seconds(10))
            #expect(outcome == (reset ? .reset : .fin))
            if transport == .h2 || transport == .h2c {
                #expect(client.http2ResetCode == (reset ? HTTP2ErrorCode.internalError : HTTP2ErrorCode.cancel))
            }
            if !reset { #expect(eventsIn(client.streamedBody) == ["e1", "e2"]) }
        }
    }

    @Test func dropAfterBytesCutsTheBody() async throws {
        try await withRunningServer { server in
            try await server.admin.faults.add(.dropAfterBytes(5, reset: false), match: .init(path: "/health"))
            let client = try server.connect()
            try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await client.waitForClose() == .fin)
            let text = String(decoding: client.buffer, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK"))
            #expect(text.hasSuffix("\r\n\r\n{\"sta"))
        }
    }

    @Test func cutInsideEventStopsPartWay() async throws {
        try await withRunningServer { server in
            try await server.admin.faults.add(
                .cutInsideEvent(event: 2, afterBytes: 7, reset: false), match: .init(path: "/sse/channels/cut"))
            let client = try await openChannel(server, "cut", http10: true)
            publish(server, "cut", "first")
            publish(server, "cut", "second")
            #expect(await client.waitForClose() == .fin)
            let body = String(decoding: client.buffer, as: UTF8.self).components(separatedBy: "\r\n\r\n").last ?? ""
            #expect(body.hasSuffix("id: 1\ndata: first\n\nid: 2\nd"))
        }
    }

    /// A reader that splits each read on "\n\n" and treats every piece as an event.
    private func naiveEvents(_ reads: [[UInt8]]) -> [String] {
        reads.flatMap { read in
            String(decoding: read, as: UTF8.self).components(separatedBy: "\n\n").compactMap { block -> String? in
                let lines = block.components(separatedBy: "\n").filter { $0.hasPrefix("data: ") }
                return lines.isEmpty ? nil : lines.map { String($0.dropFirst(6)) }.joined(separator: "\n")
            }
        }
    }

    /// Reads an HTTP/1.0 stream (no chunk framing) read by read until `count` events parse.
    /// The reads happen on a thread of their own, blocking in recv, so each read gets what
    /// the server has sent by then however busy the test's task pool is.
    private func reads(_ client: RawHTTPClient, events count: Int) async throws -> [[UInt8]] {
        try await client.receive(untilContains: "\r\n\r\n")
        let headEnd = RawHTTPClient.find([13, 10, 13, 10], in: client.buffer).map { $0 + 4 } ?? 0
        let first = Array(client.buffer[headEnd...])
        let fd = client.fileDescriptor
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var reads: [[UInt8]] = [first]
                var chunk = [UInt8](repeating: 0, count: 65536)
                let deadline = Date().addingTimeInterval(10 * Double(TestTiming.scale))
                while eventsIn(Array(reads.joined())).count < count, Date() < deadline {
                    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, 100) > 0 else { continue }
                    let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    guard received > 0 else { break }
                    reads.append(Array(chunk[0..<received]))
                }
                continuation.resume(returning: reads)
            }
        }
    }

    @Test(
        "fragment breaks a naive reader but not the parser",
        arguments: [
            // The pauses must outlast a read, or the reader gets several pieces at once;
            // sanitizer builds read more slowly.
            Fault.fragment(.bytes(1), pauseMilliseconds: 20 * TestTiming.scale),
            .fragment(.crlf, pauseMilliseconds: 30 * TestTiming.scale),
            .fragment(.utf8, pauseMilliseconds: 30 * TestTiming.scale),
        ])
    func fragment(_ fault: Fault) async throws {
        try await withRunningServer { server in
            try await server.admin.faults.add(fault, match: .init(path: "/sse/channels/frag"))
            let client = try await openChannel(server, "frag", http10: true)
            let sent = ["café au lait", "two\nlines", "thé"]
            for data in sent { publish(server, "frag", data) }
            let reads = try await reads(client, events: 3)
            #expect(eventsIn(Array(reads.joined())) == sent)
            #expect(naiveEvents(reads) != sent)
        }
    }

    /// Judged by when the bytes reached the client's socket (`TimedReads`), so a busy
    /// machine that holds the test's task up cannot make it pass or fail.
    @Test func stallKeepsTheSocketOpenAndQuiet() async throws {
        try await withRunningServer { server in
            let window = 1500
            try await server.admin.faults.add(
                .stall(afterEvents: 0, milliseconds: window), match: .init(path: "/sse/channels/stall"))
            let client = try server.connect()
            try client.send("GET /sse/channels/stall HTTP/1.1\r\nHost: t\r\n\r\n")
            let reads = TimedReads(client)
            #expect(
                await eventually { server.app.streams.existingStream(named: "channels/stall")?.subscriberCount == 1 })
            publish(server, "stall", "late")
            let head = try #require(await reads.waitFor("\r\n\r\n"))
            let late = try #require(await reads.waitFor("data: late"))
            #expect(late - head >= .milliseconds(window - 100))
            #expect(reads.closedAt == nil)
        }
    }

    /// The window is long because it is judged when the event reaches the connection's
    /// queue, which a busy machine can delay.
    /// Heartbeats go on while events are dropped. (That events flow again once the mute
    /// ends is `FaultShaperTests`'s, on an injected clock: waiting a mute out over a socket
    /// would only measure the machine's load.)
    @Test func muteSendsHeartbeatsButNoEvents() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.heartbeatInterval = .milliseconds(50)
        try await withRunningServer(configuration) { server in
            try await server.admin.faults.add(.mute(milliseconds: 600_000), match: .init(path: "/sse/channels/mute"))
            let client = try await openChannel(server, "mute")
            publish(server, "mute", "hidden")
            // Three heartbeats after the event was published: it would have come by now.
            func heartbeats() -> Int {
                String(decoding: client.buffer, as: UTF8.self).components(separatedBy: ": keep-alive").count - 1
            }
            while heartbeats() < 3 { try await client.receive(timeout: .seconds(10)) }
            #expect(eventsIn(client.streamedBody) == [])
            let record = server.app.streams.journal.snapshots(stream: "channels/mute").first
            #expect(record?.deliveredCount == 0)
        }
    }

    @Test func bufferHoldsBytesUntilTheLimit() async throws {
        try await withRunningServer { server in
            try await server.admin.faults.add(.buffer(bytes: 1024), match: .init(path: "/sse/channels/buf"))
            let client = try server.connect()
            try client.send("GET /sse/channels/buf HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = await eventually {
                server.app.streams.existingStream(named: "channels/buf")?.snapshot.subscribers.count == 1
            }
            publish(server, "buf", "small")
            #expect(await client.waitForClose(timeout: .milliseconds(300)) == .stillOpen)
            #expect(client.buffer.isEmpty)
            publish(server, "buf", String(repeating: "x", count: 1100))
            try await client.receive(untilContains: "xxxx\n\n")
            let text = String(decoding: client.buffer, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK"))
            #expect(text.contains("data: small"))
        }
    }

    @Test func resetEmptyAndMalformed() async throws {
        try await withRunningServer { server in
            func when(_ header: String) -> FaultRule.Match { .init(path: "/health", header: ["X-Fault": header]) }
            try await server.admin.faults.add(.reset, match: when("reset"))
            try await server.admin.faults.add(.emptyResponse, match: when("empty"))
            try await server.admin.faults.add(.malformed(.malformedResponseChunk), match: when("chunk"))
            try await server.admin.faults.add(.malformed(.randomDataThenClose), match: when("random"))
            func send(_ fault: String) async throws -> (RawCloseOutcome, [UInt8]) {
                let client = try server.connect()
                try client.send("GET /health HTTP/1.1\r\nHost: t\r\nX-Fault: \(fault)\r\n\r\n")
                let outcome = await client.waitForClose()
                return (outcome, client.buffer)
            }
            let (reset, resetBytes) = try await send("reset")
            #expect(reset == .reset)
            #expect(resetBytes.isEmpty)
            let (empty, emptyBytes) = try await send("empty")
            #expect(empty == .fin)
            #expect(emptyBytes.isEmpty)
            let (chunk, chunkBytes) = try await send("chunk")
            #expect(chunk == .fin)
            #expect(String(decoding: chunkBytes, as: UTF8.self).contains("\r\n\r\nzz\r\n"))
            let (random, randomBytes) = try await send("random")
            #expect(random == .fin)
            #expect(randomBytes.count == 64)
            #expect(!randomBytes.starts(with: Array("HTTP".utf8)))
            #expect(try await server.request("GET", "/health").status == 200)
        }
    }

    @Test func refuseStreamAnswersAStatusOrHangs() async throws {
        try await withRunningServer { server in
            try await server.admin.faults.add(
                .refuseStream(status: 503, hang: false), match: .init(path: "/sse/channels/refused"))
            try await server.admin.faults.add(
                .refuseStream(status: nil, hang: true), match: .init(path: "/sse/channels/hung"))
            try await server.admin.faults.add(.refuseStream(status: nil, hang: false), match: .init(path: "/health"))
            #expect(try await server.request("GET", "/sse/channels/refused").status == 503)
            let hung = try server.connect()
            try hung.send("GET /sse/channels/hung HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await hung.waitForClose(timeout: .milliseconds(400)) == .stillOpen)
            #expect(hung.buffer.isEmpty)
            // Not a stream: refuse_stream lets it through.
            #expect(try await server.request("GET", "/health").status == 200)
        }
    }

    @Test func probabilityRepeatsUnderASeed() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.seed = 11
        var patterns: [[Int]] = []
        for _ in 0..<2 {
            let pattern = try await withRunningServer(configuration) { server in
                try await server.admin.faults.add(
                    .status(500, body: nil, retryAfter: nil), match: .init(path: "/health"), probability: 0.5)
                var statuses: [Int] = []
                for _ in 0..<20 { statuses.append(try await server.request("GET", "/health").status) }
                return statuses
            }
            patterns.append(pattern)
        }
        #expect(patterns[0] == patterns[1])
        #expect(patterns[0].contains(500))
        #expect(patterns[0].contains(200))
    }

    @Test func adminListsRemovesAndRefusesBadRules() async throws {
        try await withRunningServer { server in
            try await server.admin.faults.add(.status(500, body: nil, retryAfter: nil), match: .init(path: "/health"))
            try await server.admin.faults.add(.delay(milliseconds: 1))
            #expect(try await server.request("DELETE", "/__admin/faults/fault_1").status == 204)
            #expect(try await server.request("DELETE", "/__admin/faults/fault_1").status == 404)
            #expect(try await server.request("GET", "/health").status == 200)
            #expect(try await server.request("DELETE", "/__admin/faults").text == #"{"removed":1}"#)
            let bad: [(String, String)] = [
                (#"{"fault":{"kind":"explode"}}"#, "fault.kind"), (#"{}"#, "'fault'"),
                (#"{"fault":{"kind":"delay"}}"#, "fault.ms"), (#"{"fault":{"kind":"delay","ms":-1}}"#, "fault.ms"),
                (#"{"fault":{"kind":"status","status":99}}"#, "fault.status"),
                (#"{"fault":{"kind":"reset"},"times":0}"#, "'times'"),
                (#"{"fault":{"kind":"reset"},"probability":2}"#, "'probability'"),
                (#"{"match":{"path":"health"},"fault":{"kind":"reset"}}"#, "match.path"),
                (#"{"fault":{"kind":"fragment","split":"words"}}"#, "fault.split"),
                (#"{"fault":{"kind":"buffer"}}"#, "fault.kb"),
                (#"{"fault":{"kind":"cut_inside_event","bytes":3}}"#, "fault.events"),
                (#"{"fault":{"kind":"malformed","variant":"SOMETHING"}}"#, "fault.variant"),
            ]
            for (body, field) in bad {
                let response = try await server.request("POST", "/__admin/faults", body: body)
                #expect(response.status == 400, "\(body)")
                #expect(response.text.contains(field), "\(body) → \(response.text)")
            }
        }
    }
}
