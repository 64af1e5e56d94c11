import Foundation
import MockBackend
import MockBackendTesting
import ServerSentEvents
import Testing

/// An `sse` stub plays on the simulation clock as a full stream of the mock.
@Suite("Stub replay: the simulation clock, resumes, endings, a full stream")
struct StubReplayTests {
    private static func add(_ mapping: String, to server: RunningServer) async throws {
        let added = try await server.request("POST", "/__admin/mappings", body: mapping)
        #expect(added.status == 201, "\(added.text)")
    }

    /// A server on a manual clock with `mapping` added.
    private static func withManualClock(
        mapping: String, _ body: (RunningServer) async throws -> Void
    ) async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        try await withRunningServer(configuration) { server in
            try await add(mapping, to: server)
            try await body(server)
        }
    }

    private static func advance(_ server: RunningServer, by milliseconds: Int) async throws {
        let advanced = try await server.request("POST", "/__admin/clock/advance", body: #"{"ms":\#(milliseconds)}"#)
        #expect(advanced.status == 200)
    }

    /// The data of the events `client` has received so far.
    private static func received(_ client: RawHTTPClient) -> [String] {
        var parser = SSEParser()
        return parser.feed(client.streamedBody).compactMap {
            if case .event(let event) = $0 { event.data } else { nil }
        }
    }

    /// Under a manual clock no event comes before its offset is passed, and each comes when
    /// it is: the clock is advanced in steps smaller and larger than the gaps (offsets 100,
    /// 150, 350, 360 ms).
    @Test func aManualClockReleasesEachEventWhenItsOffsetIsPassed() async throws {
        try await Self.withManualClock(
            mapping: #"""
                {"request": {"urlPath": "/ticks"}, "response": {"sse": {"end": "open", "events": [
                  {"data": "a", "delayMs": 100}, {"data": "b", "delayMs": 50},
                  {"data": "c", "delayMs": 200}, {"data": "d", "delayMs": 10}]}}}
                """#
        ) { server in
            let client = try server.connect()
            try client.send("GET /ticks HTTP/1.1\r\nHost: t\r\n\r\n")
            try await client.receive(untilContains: "\r\n\r\n")
            // (advance by, events expected after it)
            let steps: [(Int, [String])] = [
                (99, []), (1, ["a"]), (30, ["a"]), (30, ["a", "b"]), (150, ["a", "b"]), (45, ["a", "b", "c"]),
                (5, ["a", "b", "c", "d"]),
            ]
            for (milliseconds, expected) in steps {
                try await Self.advance(server, by: milliseconds)
                if let last = expected.last {
                    try await client.receive(untilContains: "data: \(last)\n\n")
                } else {
                    // Nothing is due: nothing comes, however long the test waits.
                    _ = try? await client.receive(timeout: .milliseconds(150))
                }
                #expect(Self.received(client) == expected, "after advancing \(milliseconds) ms")
            }
        }
    }

    @Test func aResumableStubResumesAfterTheLastEventIDAndAPlainOneStartsOver() async throws {
        try await withRunningServer { server in
            for (path, resumable) in [("/resumable", true), ("/plain", false)] {
                try await Self.add(
                    #"""
                    {"request": {"urlPath": "\#(path)"}, "response": {"sse": {"resumable": \#(resumable), "events": [
                      {"id": "1", "data": "one"}, {"id": "2", "data": "two", "delayMs": 5},
                      {"id": "3", "data": "three", "delayMs": 5}]}}}
                    """#, to: server)
            }
            let (resumed, _) = try await RecordingRoundTripTests.readStream(
                "/resumable", from: server, headers: "Last-Event-ID: 2\r\n")
            #expect(RecordingRoundTripTests.observed(resumed) == ["3|message|three"])
            let (byQuery, _) = try await RecordingRoundTripTests.readStream("/resumable?lastEventId=1", from: server)
            #expect(RecordingRoundTripTests.observed(byQuery) == ["2|message|two", "3|message|three"])
            let (unknown, _) = try await RecordingRoundTripTests.readStream(
                "/resumable", from: server, headers: "Last-Event-ID: 99\r\n")
            #expect(RecordingRoundTripTests.observed(unknown).count == 3)
            let (plain, _) = try await RecordingRoundTripTests.readStream(
                "/plain", from: server, headers: "Last-Event-ID: 2\r\n")
            #expect(RecordingRoundTripTests.observed(plain).count == 3)
        }
    }

    /// Chunks are written as recorded, byte for byte, even when a write ends inside an event;
    /// a resume inside a chunk starts right after the event's end.
    @Test func preservedChunksAreWrittenByteForByte() async throws {
        let chunks = [
            "retry: 900\n\nid: 1\nda", "ta: first\n\n: note\nid: 2\n", "data: second\n\nid: 3\ndata: third\n\n",
        ]
        try await withRunningServer { server in
            let items = chunks.map { #"{"text": \#(Self.quoted($0)), "delayMs": 20}"# }.joined(separator: ",")
            try await Self.add(
                #"""
                {"request": {"urlPath": "/raw"}, "response": {"sse": {"preserveChunking": true, "resumable": true,
                  "end": "fin", "chunks": [\#(items)]}}}
                """#, to: server)
            let (whole, ending) = try await RecordingRoundTripTests.readStream("/raw", from: server)
            #expect(String(decoding: whole, as: UTF8.self) == chunks.joined())
            #expect(ending == .fin)
            let (resumed, _) = try await RecordingRoundTripTests.readStream(
                "/raw", from: server, headers: "Last-Event-ID: 1\r\n")
            #expect(String(decoding: resumed, as: UTF8.self) == ": note\nid: 2\ndata: second\n\nid: 3\ndata: third\n\n")
        }
    }

    /// A played stream is listed as `replay/<path>`, takes pushes between its writes, and
    /// its journal has the ids it wrote.
    @Test func aPlayedStreamIsAStreamOfTheMock() async throws {
        try await Self.withManualClock(
            mapping: #"""
                {"request": {"urlPath": "/feed"}, "response": {"sse": {"events": [
                  {"id": "1", "data": "first"}, {"id": "2", "data": "second", "delayMs": 1000}]}}}
                """#
        ) { server in
            let client = try server.connect()
            try client.send("GET /feed HTTP/1.1\r\nHost: t\r\n\r\n")
            try await client.receive(untilContains: "data: first")
            let listed = try await server.request("GET", "/__admin/streams")
            #expect(listed.text.contains(#""name":"replay/feed""#), "\(listed.text)")
            let pushed = try await server.request(
                "POST", "/__admin/streams/replay/feed/events", body: #"{"event": "note", "data": "pushed"}"#)
            #expect(pushed.status == 200, "\(pushed.text)")
            try await client.receive(untilContains: "data: pushed")
            try await Self.advance(server, by: 1000)
            let response = try await client.readResponse()
            #expect(
                RecordingRoundTripTests.observed(Array(response.body)) == [
                    "1|message|first", "1|note|pushed", "2|message|second",
                ])
            let journal = try await server.request("GET", "/__admin/streams/connections?stream=replay/feed")
            #expect(journal.text.contains(#""2""#), "\(journal.text)")
        }
    }

    /// A fault counts a played stream's events as it counts the mock's own.
    @Test func aFaultActsAtAPlayedStreamsEventN() async throws {
        try await withRunningServer { server in
            try await Self.add(
                #"""
                {"request": {"urlPath": "/played"}, "response": {"sse": {"events": [
                  {"id": "1", "data": "one"}, {"id": "2", "data": "two", "delayMs": 5},
                  {"id": "3", "data": "three", "delayMs": 5}]}}}
                """#, to: server)
            let fault = try await server.request(
                "POST", "/__admin/faults",
                body:
                    #"{"match": {"path": "/played"}, "fault": {"kind": "drop_after_events", "events": 2, "reset": true}}"#
            )
            #expect(fault.status == 201, "\(fault.text)")
            let (bytes, ending) = try await RecordingRoundTripTests.readStream("/played", from: server)
            #expect(RecordingRoundTripTests.observed(bytes) == ["1|message|one", "2|message|two"])
            #expect(ending == .reset)
        }
    }

    private static func quoted(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }
}
