import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// The V1 progress WebSocket, `GET /ws/progress?jobId=`: the handshake and its refusals,
/// the job's events as JSON text messages, the end, and the socket as one of the job
/// stream's connections (admin list, journal, disconnects, faults).
@Suite("V1 progress WebSocket")
struct ProgressWebSocketTests {
    private static func manual() -> MockBackendConfiguration {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        return configuration
    }

    /// Uploads a CSV of `rows` rows; returns the job id.
    private func startJob(_ server: some AppUnderTest, rows: Int = 20) async throws -> String {
        let accepted = try await upload(server, booksCSV(rows: rows))
        #expect(accepted.status == 202)
        let object = try JSONSerialization.jsonObject(with: Data(accepted.body)) as? [String: Any]
        return try #require(object?["jobId"] as? String)
    }

    private func advance(_ server: some AppUnderTest, ms: Int) async throws {
        try await server.admin.clock.advance(by: .milliseconds(ms))
    }

    /// The JSON object of a text frame.
    private func message(_ frame: RawWebSocketFrame) throws -> [String: Any] {
        #expect(frame.opcode == 1, "\(frame)")
        return try #require(try JSONSerialization.jsonObject(with: Data(frame.payload)) as? [String: Any])
    }

    /// Reads text messages until one of type `type`; returns all of them.
    private func messages(_ client: RawWebSocketClient, until type: String) async throws -> [[String: Any]] {
        var received: [[String: Any]] = []
        while received.last?["type"] as? String != type {
            received.append(try message(try await client.readFrameSkippingPings()))
        }
        return received
    }

    @Test func aWholeJobArrivesAsMessagesThenCloses1000() async throws {
        try await withRunningServer(Self.manual()) { server in
            let job = try await startJob(server, rows: 20)
            let client = try await RawWebSocketClient.connect(port: server.port, path: "/ws/progress?jobId=\(job)")
            #expect(client.handshake?.headers["Sec-WebSocket-Accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
            try await advance(server, ms: 200)
            try await advance(server, ms: 200)
            try await server.admin.imports.complete(job)
            let received = try await messages(client, until: "complete")
            #expect(received.first?["type"] as? String == "started")
            #expect(received.first?["jobId"] as? String == job)
            let progress = try #require(received.first { $0["type"] as? String == "progress" })
            // Both spellings, as on the V2 stream.
            #expect(progress["processedRows"] as? Int == progress["processedCount"] as? Int)
            #expect(progress["totalRows"] as? Int == 20)
            #expect(progress["totalCount"] as? Int == 20)
            let complete = try #require(received.last)
            #expect(complete["successfulRows"] as? Int == 20)
            #expect(complete["status"] as? String == "complete")
            let close = try await client.readFrameSkippingPings()
            #expect(close.opcode == 8)
            #expect(close.closeCode == 1000)
            try client.send(.close(code: 1000))
            #expect(await client.readUntilClosed().end == .fin)
            let record = try #require(
                server.app.streams.journal.snapshots(stream: "imports/\(job)").first { $0.protocol == "websocket" })
            #expect(record.endReason == "finished")
            #expect(record.deliveredCount == received.count)
        }
    }

    @Test func aReconnectGetsTheWholeHistoryAgain() async throws {
        try await withRunningServer(Self.manual()) { server in
            let job = try await startJob(server)
            try await advance(server, ms: 400)
            let first = try await RawWebSocketClient.connect(port: server.port, path: "/ws/progress?jobId=\(job)")
            let firstTypes = try await messages(first, until: "progress").map { $0["type"] as? String }
            first.close()
            let second = try await RawWebSocketClient.connect(port: server.port, path: "/ws/progress?jobId=\(job)")
            let secondTypes = try await messages(second, until: "progress").map { $0["type"] as? String }
            #expect(firstTypes == secondTypes)
            #expect(secondTypes.first == "started")
        }
    }

    @Test(
        "refusals come before any upgrade",
        arguments: [
            ("/ws/progress?jobId=import_nope", "", 404, "JOB_NOT_FOUND", nil as String?),
            ("/ws/progress", "", 404, "JOB_NOT_FOUND", nil),
            ("/ws/progress?jobId=JOB", "plain", 426, "", "Upgrade: websocket"),
            ("/ws/progress?jobId=JOB", "version", 426, "", "Sec-WebSocket-Version: 13"),
        ])
    func refusals(path: String, variant: String, status: Int, code: String, header: String?) async throws {
        try await withRunningServer(Self.manual()) { server in
            let job = try await startJob(server)
            let target = path.replacingOccurrences(of: "JOB", with: job)
            let client = try server.connect()
            switch variant {
            case "plain": try client.send("GET \(target) HTTP/1.1\r\nHost: t\r\n\r\n")
            case "version":
                try client.send(
                    RawWebSocketClient.upgradeRequest(path: target).replacingOccurrences(
                        of: "Sec-WebSocket-Version: 13", with: "Sec-WebSocket-Version: 8"))
            default: try client.send(RawWebSocketClient.upgradeRequest(path: target))
            }
            let response = try await client.readResponse()
            #expect(response.status == status)
            #expect(response.rawHead.hasPrefix("HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(status))\r\n"))
            #expect(!HTTPStatus.reasonPhrase(status).hasPrefix("Status"))
            #expect(response.headers["Content-Type"] == "application/problem+json")
            if !code.isEmpty { #expect(response.text.contains(code)) }
            if let header {
                let parts = header.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                #expect(response.headers[parts[0]] == parts[1])
            }
        }
    }

    @Test func itIsOneOfTheJobStreamsConnectionsAndTakesAdminPushes() async throws {
        try await withRunningServer(Self.manual()) { server in
            let job = try await startJob(server)
            let client = try await RawWebSocketClient.connect(port: server.port, path: "/ws/progress?jobId=\(job)")
            #expect(
                await eventually { server.app.streams.existingStream(named: "imports/\(job)")?.subscriberCount == 1 })
            let listed = try await server.admin.streams.list().first { $0.name == "imports/\(job)" }
            #expect(listed?.subscribers.map(\.protocol) == ["websocket"])
            try await server.admin.streams.push(
                to: "imports/\(job)", data: .object(["text": .string("hi")]), event: "note")
            let note = try message(try await client.readFrameSkippingPings())
            #expect(note["type"] as? String == "note")
            #expect(note["text"] as? String == "hi")
            let connections = server.app.streams.journal.snapshots(stream: "imports/\(job)")
            #expect(connections.map(\.protocol) == ["websocket"])
            #expect(connections.first?.requestHeaders["Sec-WebSocket-Key"] == RawWebSocketClient.sampleKey)
        }
    }

    /// An admin push with `count` (a flood) reaches the socket as one message per copy, beside
    /// an event stream of the same job.
    @Test func aFloodArrivesAsOneMessagePerCopy() async throws {
        try await withRunningServer(Self.manual()) { server in
            let job = try await startJob(server)
            let client = try await RawWebSocketClient.connect(port: server.port, path: "/ws/progress?jobId=\(job)")
            let stream = try StreamReader(server, "/api/v2/imports/\(job)/stream", clientID: "sse")
            #expect(
                await eventually { server.app.streams.existingStream(named: "imports/\(job)")?.subscriberCount == 2 })
            let pushed = try await server.admin.streams.push(
                to: "imports/\(job)", data: .object(["seq": .integer(7)]), count: 3000)
            #expect(pushed.delivered == 2)
            let lastID = try #require(pushed.id)
            var copies = 0
            while copies < 3000 {
                let received = try message(try await client.readFrameSkippingPings())
                guard received["seq"] as? Int == 7 else { continue }  // the job's history
                #expect(received["type"] as? String == "message")
                copies += 1
            }
            try await stream.read(until: lastID)
            #expect(stream.ids.suffix(3000).count == 3000)
        }
    }

    @Test(arguments: [DisconnectMode.graceful, .broken, .reset])
    func adminDisconnect(_ mode: DisconnectMode) async throws {
        try await withRunningServer(Self.manual()) { server in
            let job = try await startJob(server)
            let client = try await RawWebSocketClient.connect(port: server.port, path: "/ws/progress?jobId=\(job)")
            #expect(
                await eventually { server.app.streams.existingStream(named: "imports/\(job)")?.subscriberCount == 1 })
            try await server.admin.streams.disconnect("imports/\(job)", mode: mode)
            if mode == .graceful {
                // A client answers the server's close frame, as the closing handshake asks.
                var frame = try await client.readFrame()
                while frame.opcode != 8 { frame = try await client.readFrame() }
                #expect(frame.closeCode == 1001)
                try client.send(.close(code: 1001))
            }
            let (frames, end) = await client.readUntilClosed()
            switch mode {
            case .graceful:
                #expect(end == .fin)
                #expect(!frames.contains { $0.opcode == 8 })
            case .reset:
                #expect(end == .reset)
                #expect(!frames.contains { $0.opcode == 8 })
            case .broken:
                #expect(end == .fin)
                #expect(!frames.contains { $0.opcode == 8 })
            }
            #expect(
                await eventually {
                    server.app.streams.journal.snapshots(stream: "imports/\(job)").first?.endReason == "admin"
                })
        }
    }

    private func addFault(_ server: some AppUnderTest, _ fault: Fault) async throws {
        try await server.admin.faults.add(fault, match: .init(path: "/ws/progress"))
    }

    @Test func dropAfterEventsCountsMessages() async throws {
        try await withRunningServer(Self.manual()) { server in
            let job = try await startJob(server, rows: 50)
            try await advance(server, ms: 200)
            try await advance(server, ms: 200)
            try await advance(server, ms: 200)
            try await addFault(server, .dropAfterEvents(2, reset: false))
            let client = try await RawWebSocketClient.connect(port: server.port, path: "/ws/progress?jobId=\(job)")
            let (frames, end) = await client.readUntilClosed()
            #expect(end == .fin)
            #expect(frames.filter { $0.opcode == 1 }.count == 2)
            #expect(!frames.contains { $0.opcode == 8 })
        }
    }

    /// A flood's copies go out through the fault's shaper one message each, so the count is
    /// of messages, not of the batch's one write.
    @Test func dropAfterEventsCountsTheMessagesOfAFlood() async throws {
        try await withRunningServer(Self.manual()) { server in
            let job = try await startJob(server)
            try await addFault(server, .dropAfterEvents(4, reset: false))
            let client = try await RawWebSocketClient.connect(port: server.port, path: "/ws/progress?jobId=\(job)")
            #expect(
                await eventually { server.app.streams.existingStream(named: "imports/\(job)")?.subscriberCount == 1 })
            try await server.admin.streams.push(to: "imports/\(job)", data: .object(["seq": .integer(7)]), count: 10)
            let (frames, end) = await client.readUntilClosed()
            #expect(end == .fin)
            let texts = frames.filter { $0.opcode == 1 }
            #expect(texts.count == 4)
            // The pushed object's members with the event's name as `type`, encoded once,
            // keys sorted as in every body the server writes.
            #expect(String(decoding: texts.last?.payload ?? [], as: UTF8.self) == #"{"seq":7,"type":"message"}"#)
        }
    }

    /// A buffering proxy passes the handshake, holds the messages, and lets everything go at
    /// the end: the close frame is the end, so the last messages and the close 1000 arrive,
    /// even when the whole job is smaller than what it holds.
    @Test func bufferLetsTheMessagesAndTheCloseGoAtTheEnd() async throws {
        try await withRunningServer(Self.manual()) { server in
            let job = try await startJob(server, rows: 20)
            try await addFault(server, .buffer(bytes: 1 << 20))
            let client = try await RawWebSocketClient.connect(port: server.port, path: "/ws/progress?jobId=\(job)")
            #expect(client.handshake?.status == 101)
            try await advance(server, ms: 200)
            #expect(await client.readUntilClosed(timeout: .milliseconds(300)).end == .stillOpen)
            try await server.admin.imports.complete(job)
            let received = try await messages(client, until: "complete")
            #expect(received.first?["type"] as? String == "started")
            let close = try await client.readFrameSkippingPings()
            #expect(close.closeCode == 1000)
            try client.send(.close(code: 1000))
            #expect(await client.readUntilClosed().end == .fin)
        }
    }

    @Test func blackholeSendsNothingMoreAndNeverCloses() async throws {
        try await withRunningServer(Self.manual()) { server in
            let job = try await startJob(server, rows: 50)
            try await addFault(server, .blackhole(afterEvents: 1))
            let client = try await RawWebSocketClient.connect(port: server.port, path: "/ws/progress?jobId=\(job)")
            try await advance(server, ms: 200)
            try await advance(server, ms: 200)
            let first = try message(try await client.readFrame())
            #expect(first["type"] as? String == "started")
            try await server.admin.imports.complete(job)
            let (frames, end) = await client.readUntilClosed(timeout: .milliseconds(500))
            #expect(end == .stillOpen)
            #expect(frames.isEmpty)
        }
    }

    @Test func refuseStreamAnswersBeforeTheUpgrade() async throws {
        try await withRunningServer(Self.manual()) { server in
            let job = try await startJob(server)
            try await addFault(server, .refuseStream(status: 503, hang: false))
            let client = try server.connect()
            try client.send(RawWebSocketClient.upgradeRequest(path: "/ws/progress?jobId=\(job)"))
            #expect(try await client.readResponse().status == 503)
        }
    }
}
