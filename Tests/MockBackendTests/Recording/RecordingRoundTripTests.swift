import Foundation
import MockBackend
import MockBackendAPI
import MockBackendHTTP
import MockBackendTesting
import ServerSentEvents
import Testing

/// Recording through the proxy, then replaying offline: what a client sees of the replay
/// is what it saw of the upstream.
@Suite("Recording: record through the proxy, replay offline")
struct RecordingRoundTripTests {
    static let token = "tok-3f9a8c7e-secret"
    static let cookie = "cookie-77b1d2e4-secret"
    static let sessionHeader = "sess-91ce0a55-secret"

    /// The upstream's answers: JSON with a cookie, an event stream with ids, retry,
    /// comments and uneven delays that ends with RST, a WebSocket that closes.
    static let upstreamMappings = [
        #"""
        {"request": {"method": "GET", "urlPath": "/api/me"}, "response": {"status": 200,
         "headers": {"Set-Cookie": "sid=\#(cookie); Path=/; HttpOnly"}, "jsonBody": {"user": {"id": 7, "name": "Ada"}}}}
        """#,
        #"""
        {"request": {"method": "GET", "urlPath": "/api/jobs/9/events"}, "response": {"sse": {"end": "rst", "events": [
          {"retry": 1500, "delayMs": 0},
          {"comment": " keep-alive", "delayMs": 5},
          {"id": "1", "event": "progress", "data": "{\"pct\":10}", "delayMs": 20},
          {"id": "2", "event": "progress", "data": "line one\nline two", "delayMs": 60},
          {"id": "3", "data": "done", "delayMs": 15}]}}}
        """#,
        #"""
        {"request": {"urlPath": "/v1/progress"}, "response": {"webSocket": {
          "messages": [{"text": "{\"type\":\"progress\",\"pct\":50}", "delayMs": 10}, {"binary": "AAEC", "delayMs": 30}],
          "close": {"code": 4000, "reason": "job finished"}}}}
        """#,
    ]

    /// What a client parser sees of an event stream: `(id, event, data)` per event, and
    /// each `retry`.
    static func observed(_ bytes: [UInt8]) -> [String] {
        var parser = SSEParser()
        return parser.feed(bytes).compactMap { output in
            switch output {
            case .event(let event): "\(event.id ?? "-")|\(event.type ?? "message")|\(event.data)"
            case .retry(let milliseconds): "retry \(milliseconds)"
            default: nil
            }
        }
    }

    /// The whole stream a client reads from `server` until the server ends it, and how: nil
    /// for the body's end (the connection kept), else FIN or RST.
    static func readStream(_ target: String, from server: RunningServer, headers: String = "") async throws
        -> ([UInt8], RawCloseOutcome?)
    {
        let client = try server.connect()
        try client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n")
        let lastChunk = Array("\r\n0\r\n\r\n".utf8)
        while true {
            if client.buffer.count >= lastChunk.count, Array(client.buffer.suffix(lastChunk.count)) == lastChunk {
                return (client.streamedBody, nil)
            }
            do {
                if try await client.receive(timeout: .seconds(20)) == 0 { return (client.streamedBody, .fin) }
            } catch RawClientError.resetByPeer {
                return (client.streamedBody, .reset)
            }
        }
    }

    @Test func restEventStreamsAndWebSocketsReplayAsTheyWereRecorded() async throws {
        try await withProxiedUpstream { upstream, proxy in
            for mapping in Self.upstreamMappings {
                #expect(try await upstream.request("POST", "/__admin/mappings", body: mapping).status == 201)
            }
            let started = try await proxy.request(
                "POST", "/__admin/recordings/start", body: #"{"captureHeaders": {"Accept": {}}}"#)
            #expect(started.status == 200)
            #expect(started.text.contains(#""status":"Recording""#))
            let secrets =
                "Authorization: Bearer \(Self.token)\r\nCookie: sid=\(Self.cookie)\r\nX-Session: \(Self.sessionHeader)\r\n"

            let me = try await proxy.connect().sending(
                "GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\(secrets)\r\n")
            #expect(me.status == 200)
            let (recordedStream, recordedEnding) = try await Self.readStream(
                "/api/jobs/9/events", from: proxy, headers: secrets)
            #expect(recordedEnding == .reset)
            let recordedMessages = try await WebSocketProbe.messages(port: proxy.port, path: "/v1/progress")

            let stopped = try await proxy.request("POST", "/__admin/recordings/stop")
            #expect(stopped.status == 200)
            #expect(!stopped.text.contains(Self.token))
            #expect(!stopped.text.contains(Self.cookie))
            #expect(!stopped.text.contains(Self.sessionHeader))
            let list = try JSONDecoder().decode(RecordedList.self, from: Data(stopped.body))
            #expect(list.mappings.count == 3)
            #expect(try await proxy.request("GET", "/__admin/recordings/status").text.contains(#""Stopped""#))

            // A fresh server with no upstream at all.
            try await withRunningServer { offline in
                let imported = try await offline.request("POST", "/__admin/mappings/import", body: stopped.text)
                #expect(imported.status == 200, "\(imported.text)")
                let replayedMe = try await offline.request(
                    "GET", "/api/me", headers: ["Accept": "application/json"])
                #expect(replayedMe.status == 200)
                #expect(
                    try JSONDecoder().decode(JSONValue.self, from: Data(replayedMe.body))
                        == (try JSONDecoder().decode(JSONValue.self, from: Data(me.body))))
                #expect(replayedMe.headers["Set-Cookie"]?.contains(Self.cookie) == false)

                let (replayedStream, replayedEnding) = try await Self.readStream("/api/jobs/9/events", from: offline)
                #expect(Self.observed(replayedStream) == Self.observed(recordedStream))
                #expect(Self.observed(replayedStream).count == 4)
                #expect(replayedEnding == .reset)

                let replayedMessages = try await WebSocketProbe.messages(port: offline.port, path: "/v1/progress")
                #expect(replayedMessages == recordedMessages)
                #expect(replayedMessages.last == "close 4000 job finished")
            }
        }
    }

    @Test func repeatedRequestsWithDifferentAnswersBecomeAScenarioNamedPerRecording() async throws {
        try await withProxiedUpstream { upstream, proxy in
            for number in 1...2 {
                _ = try await proxy.request("POST", "/__admin/recordings/start")
                // The upstream's answer changes between the two requests.
                _ = try await upstream.request(
                    "POST", "/__admin/mappings",
                    body:
                        #"{"priority": 1, "request": {"urlPath": "/api/status"}, "response": {"jsonBody": {"state": "queued"}}}"#
                )
                _ = try await proxy.request("GET", "/api/status")
                _ = try await upstream.request(
                    "POST", "/__admin/mappings",
                    body:
                        #"{"priority": 1, "request": {"urlPath": "/api/status"}, "response": {"jsonBody": {"state": "done"}}}"#
                )
                _ = try await proxy.request("GET", "/api/status")
                _ = try await proxy.request("GET", "/api/status")
                let stopped = try await proxy.request("POST", "/__admin/recordings/stop")
                let list = try JSONDecoder().decode(RecordedList.self, from: Data(stopped.body))
                // Three requests, two distinct answers: two mappings in one scenario.
                #expect(list.mappings.count == 2)
                let scenarios = list.mappings.map { $0.fields["scenarioName"] }
                #expect(scenarios == Array(repeating: .string("recording-\(number)-get-api-status"), count: 2))
                #expect(list.mappings.first?.fields["requiredScenarioState"] == .string("Started"))
                #expect(
                    list.mappings.first?.fields["newScenarioState"]
                        == list.mappings.last?.fields["requiredScenarioState"])
                #expect(list.mappings.last?.fields["newScenarioState"] == nil)
                // Served offline, the scenario answers in the recorded order, the last answer kept.
                try await withRunningServer { offline in
                    let imported = try await offline.request("POST", "/__admin/mappings/import", body: stopped.text)
                    #expect(imported.status == 200, "\(imported.text)")
                    var states: [String] = []
                    for _ in 0..<3 { states.append(try await offline.request("GET", "/api/status").text) }
                    #expect(states == [#"{"state":"queued"}"#, #"{"state":"done"}"#, #"{"state":"done"}"#])
                }
                _ = try await upstream.request("POST", "/__admin/mappings/reset")
                // Stopping added them to the proxy, as WireMock does: they would answer the
                // next recording's requests.
                _ = try await proxy.request("POST", "/__admin/mappings/reset")
            }
        }
    }

    @Test func filtersChooseWhatIsRecorded() async throws {
        try await withProxiedUpstream { upstream, proxy in
            _ = try await upstream.request(
                "POST", "/__admin/mappings",
                body: #"{"request": {"urlPathPattern": "/.*"}, "response": {"body": "up"}}"#)
            _ = try await proxy.request(
                "POST", "/__admin/recordings/start",
                body: #"{"filters": {"urlPathPattern": "/api/.*", "method": "GET"}}"#)
            _ = try await proxy.request("GET", "/api/kept")
            _ = try await proxy.request("POST", "/api/posted", body: "{}")
            _ = try await proxy.request("GET", "/other")
            let snapshot = try await proxy.request("POST", "/__admin/recordings/snapshot")
            let list = try JSONDecoder().decode(RecordedList.self, from: Data(snapshot.body))
            #expect(list.mappings.map { $0.fields["name"] } == [.string("get-api-kept")])
            // A snapshot leaves the recording running.
            #expect(try await proxy.request("GET", "/__admin/recordings/status").text.contains("Recording"))
        }
    }

    @Test(
        arguments: [
            (#"{"filters": {"urlPathPattern": "(("}}"#, "filters.urlPathPattern is not a valid regular expression"),
            (#"{"targetBaseUrl": "ftp://x"}"#, "targetBaseUrl must be an http:// or https:// URL"),
            (#"{"captureHeaders": {"Accept": true}}"#, "captureHeaders.Accept must be a JSON object"),
            (#"{"requestBodyPattern": {}}"#, "requestBodyPattern is not supported by mockbackend"),
            (#"{"repeatsAsScenario": true}"#, "repeatsAsScenario is not a known field"),
            (#"["#, "not valid JSON"),
        ])
    func aBadSpecIs400NamingTheField(_ body: String, _ detail: String) async throws {
        try await withRunningServer { server in
            let response = try await server.request("POST", "/__admin/recordings/start", body: body)
            #expect(response.status == 400)
            #expect(response.text.contains("INVALID_RECORDING_SPEC"), "\(response.text)")
            #expect(response.text.contains(detail), "\(response.text)")
            #expect(try await server.request("GET", "/__admin/recordings/status").text.contains("NeverStarted"))
        }
    }

    @Test func startingTwiceStoppingTwiceAndAForeignTargetAreRefused() async throws {
        try await withRunningServer { server in
            let foreign = try await server.request(
                "POST", "/__admin/recordings/start", body: #"{"targetBaseUrl": "http://example.org"}"#)
            #expect(foreign.status == 400)
            #expect(foreign.text.contains("PROXY_HOST_NOT_ALLOWED"))
            let noArchive = try await server.request("GET", "/__admin/recordings/mappings.tar")
            #expect(noArchive.status == 404)
            #expect(noArchive.text.contains("NO_RECORDING"))
            let notRecording = try await server.request("POST", "/__admin/recordings/stop")
            #expect(notRecording.status == 409)
            #expect(notRecording.text.contains("NOT_RECORDING"))
            #expect(try await server.request("POST", "/__admin/recordings/start").status == 200)
            let again = try await server.request("POST", "/__admin/recordings/start")
            #expect(again.status == 409)
            #expect(again.text.contains("RECORDING_IN_PROGRESS"))
            let archive = try await server.request("GET", "/__admin/recordings/mappings.tar")
            #expect(archive.status == 200)
            #expect(archive.headers["Content-Type"] == "application/x-tar")
            // Nothing recorded: the two empty blocks that end an archive.
            #expect(archive.body == [UInt8](repeating: 0, count: 1024))
            let wrongType = try await server.request(
                "POST", "/__admin/recordings/snapshot", headers: ["Content-Type": "text/plain"], body: "{}")
            #expect(wrongType.status == 415)
        }
    }

    @Test func aTargetBaseUrlProxiesWhileTheRecordingRuns() async throws {
        try await withRunningServer { upstream in
            _ = try await upstream.request(
                "POST", "/__admin/mappings",
                body: #"{"request": {"urlPath": "/far"}, "response": {"body": "from afar"}}"#)
            var configuration = MockBackendConfiguration.forTesting()
            configuration.proxy.allowedHosts = ["127.0.0.1"]
            try await withRunningServer(configuration) { server in
                #expect(try await server.request("GET", "/far").status == 404)
                _ = try await server.request(
                    "POST", "/__admin/recordings/start",
                    body: #"{"targetBaseUrl": "http://127.0.0.1:\#(upstream.port)"}"#)
                #expect(try await server.request("GET", "/far").text == "from afar")
                let stopped = try await server.request("POST", "/__admin/recordings/stop")
                #expect(stopped.text.contains("from afar"))
                // Added to the server as WireMock does: answered here now, upstream or not.
                #expect(try await server.request("GET", "/far").text == "from afar")
                #expect(upstream.app.requests.entries().filter { $0.path == "/far" }.count == 1)
            }
        }
    }
}

/// A recorded mapping list, each mapping as its JSON fields.
struct RecordedList: Decodable {
    struct Mapping: Decodable {
        let fields: [String: JSONValue]
        init(from decoder: any Decoder) throws {
            fields = try [String: JSONValue](from: decoder)
        }
    }
    let mappings: [Mapping]
}

extension RawHTTPClient {
    /// Sends `text` and reads one response.
    func sending(_ text: String) async throws -> RawResponse {
        try send(text)
        return try await readResponse()
    }
}

/// Reads a WebSocket's messages until its close, as text: `text …`, `binary <base64>`,
/// then `close CODE REASON`.
enum WebSocketProbe {
    static func messages(port: Int, path: String) async throws -> [String] {
        let client = try await RawWebSocketClient.connect(port: port, path: path)
        defer { client.close() }
        var seen: [String] = []
        while true {
            let frame = try await client.readFrameSkippingPings()
            switch frame.opcode {
            case 1: seen.append("text \(frame.text)")
            case 2: seen.append("binary \(Data(frame.payload).base64EncodedString())")
            case 8:
                let reason = String(decoding: frame.payload.dropFirst(2), as: UTF8.self)
                seen.append("close \(frame.closeCode.map(String.init) ?? "-") \(reason)")
                try? client.send(.close(code: frame.closeCode))
                return seen
            default: continue
            }
        }
    }
}
