import MockBackendAPI
import MockBackendHTTP
import ServerSentEvents
import Testing

@testable import MockBackend

/// Where a new connection's replay starts, for every kind of Last-Event-ID and both replay
/// policies, and what it is sent first: on recording sinks, without sockets.
@Suite("Stream replay positions")
struct EventStreamReplayTests {
    @Test func aHistoryWithoutLastEventIDReplaysEverythingRetainedThenGoesLive() {
        let bench = StreamBench(settings: EventStreamSettings(retry: 2000, greeting: "hello"))
        bench.publish("one", "two")
        let sink = bench.subscribe()
        bench.publish("three")
        #expect(sink.text.hasPrefix(": hello\n\nretry: 2000\nid: 1\n"))
        #expect(sink.events.map(\.data) == ["one", "two", "three"])
        #expect(sink.events.map(\.id) == ["1", "2", "3"])
    }

    @Test func aRetainedIDReplaysWhatCameAfterIt() {
        let bench = StreamBench()
        bench.publish("one", "two", "three")
        let sink = bench.subscribe(lastEventID: "2")
        #expect(sink.events.map(\.data) == ["three"])
    }

    @Test func anIDPastRetentionGetsAResetThenEverythingRetained() {
        let bench = StreamBench(retention: 2)
        bench.publish("one", "two", "three", "four")
        let sink = bench.subscribe(lastEventID: "1")
        #expect(sink.events.map(\.type) == ["reset", nil, nil])
        #expect(sink.events.first?.data == #"{"reason":"retention","lastEventId":"1","oldestRetainedId":"3"}"#)
        #expect(sink.events.dropFirst().map(\.data) == ["three", "four"])
    }

    @Test func anIDNeverIssuedGetsACommentThenEverything() {
        let bench = StreamBench()
        bench.publish("one")
        let sink = bench.subscribe(lastEventID: "banana")
        #expect(
            sink.text.contains(": Last-Event-ID banana was never issued by this stream; replaying from the start\n"))
        #expect(sink.events.map(\.data) == ["one"])
    }

    @Test func aFinishedStreamWithNothingAfterTheIDHasNothingToSay() {
        let bench = StreamBench()
        bench.publish("one", "two")
        bench.stream.finish()
        #expect(bench.stream.hasNothingAfter("2"))
        #expect(!bench.stream.hasNothingAfter("1"))
        // A late subscriber gets the rest, then the end.
        let sink = bench.subscribe(lastEventID: "1")
        #expect(sink.events.map(\.data) == ["two"])
        #expect(sink.entries.last == .finished(.complete))
        #expect(bench.record(of: sink)?.endReason == "finished")
    }

    @Test func deltasReplayNothingWithoutAnIDAndOnlyTheAudiencesOwnWithOne() {
        let bench = StreamBench(settings: EventStreamSettings(replay: .deltas))
        bench.publish("before the session")
        bench.stream.openAudience("s1")
        bench.publish("first", "second")
        let fresh = bench.subscribe(audience: "s1")
        #expect(fresh.events.isEmpty)
        let resumed = bench.subscribe(lastEventID: "2", audience: "s1")
        #expect(resumed.events.map(\.data) == ["second"])
        // An id from before the audience began, or one never issued, replays nothing.
        #expect(bench.subscribe(lastEventID: "1", audience: "s1").events.isEmpty)
        #expect(bench.subscribe(lastEventID: "77", audience: "s1").events.isEmpty)
    }

    /// Deltas (the user-info stream) past retention: what is retained of the session's own,
    /// without a `reset` notice, which is no frame of that backend (its clients decode
    /// every frame as a `{"type","body"}` envelope).
    @Test func deltasPastRetentionReplayWhatIsRetainedWithoutANotice() {
        let bench = StreamBench(settings: EventStreamSettings(replay: .deltas), retention: 2)
        bench.stream.openAudience("s1")
        bench.publish(#"{"type":"A","body":{}}"#, #"{"type":"B","body":{}}"#, #"{"type":"C","body":{}}"#)
        let sink = bench.subscribe(lastEventID: "1", audience: "s1")
        #expect(sink.events.map(\.id) == ["2", "3"])
        #expect(sink.events.allSatisfy { $0.type == nil && $0.data.hasPrefix(#"{"type":"#) })
    }

    @Test func aBacklogIsReplayedAtTheReadersPaceAndGoesLiveAtItsEnd() {
        let bench = StreamBench()
        let payload = String(repeating: "x", count: 1000)
        for _ in 1...200 { bench.stream.publish(ServerSentEvent(data: payload)) }
        let sink = bench.subscribe(holding: true)
        // One batch is out; the next waits until the reader takes it down to the low mark.
        let firstBatch = sink.unsentBytes
        #expect(firstBatch >= EventStream.replayBatchBytes)
        #expect(firstBatch < 2 * EventStream.replayBatchBytes)
        #expect(bench.stream.snapshot.subscribers.first?.catchingUp == true)
        // A live event meanwhile waits in the log for the replay to reach it.
        bench.publish("live")
        while bench.stream.snapshot.subscribers.first?.catchingUp == true {
            sink.take(sink.unsentBytes)
            bench.run()
        }
        sink.take(.max)
        bench.publish("after")
        #expect(sink.events.count == 202)
        #expect(sink.events.map(\.id) == (1...202).map(String.init))
        #expect(sink.events.suffix(2).map(\.data) == ["live", "after"])
    }

    @Test func aWebSocketGetsEveryRetainedEventAsAMessageWithItsType() throws {
        let bench = StreamBench(settings: EventStreamSettings(greeting: "hi", messages: true))
        bench.stream.publish(ImportStartedEvent(jobId: "import_1", totalRows: 2))
        let socket = bench.subscribe(lastEventID: "1", framing: .webSocket)
        bench.stream.publish(StreamEvent(type: "note", data: .object(["text": .string("hello")])))
        bench.stream.publish(StreamEvent(type: nil, data: .string("plain")))
        bench.run()
        // No prelude and no resume on the V1 socket: every event, one typed message each.
        #expect(
            socket.messages == [
                #"{"jobId":"import_1","status":"processing","totalRows":2,"type":"started"}"#,
                #"{"text":"hello","type":"note"}"#, #"{"data":"plain","type":"message"}"#,
            ])
        // The message is what the client decodes, the same value as the event.
        #expect(
            try ImportStreamEvent.decode(v1Message: socket.messages[0])
                == .started(ImportStartedEvent(jobId: "import_1", totalRows: 2)))
    }
}
