import MockBackendHTTP
import ServerSentEvents
import TestSupport
import Testing

@testable import MockBackend

/// What the journal says was delivered is what left for the client: counted as the sink
/// takes the bytes of each event, whatever was queued; in order, with the ids of the first
/// events only.
@Suite("Stream delivery counts")
struct EventStreamDeliveryTests {
    @Test func eventsCountWhenTheirBytesAreTakenNotWhenQueued() {
        let bench = StreamBench()
        let sink = bench.subscribe(holding: true)
        bench.publish("one", "two", "three")
        #expect(bench.record(of: sink)?.deliveredCount == 0)
        #expect(bench.stream.snapshot.subscribers.first?.deliveredCount == 0)
        // The first event's bytes and part of the second's.
        let first = Array(SSEEncoder.encode(ServerSentEvent(data: "one", id: "1"))).count
        sink.take(first + 3)
        #expect(bench.record(of: sink)?.deliveredIds == ["1"])
        sink.take(.max)
        #expect(bench.record(of: sink)?.deliveredIds == ["1", "2", "3"])
        #expect(bench.record(of: sink)?.deliveredCount == 3)
    }

    /// A replay, events sent to the connection alone (with an id or without), a reset notice
    /// and live events: counted in the order written; ids kept for those that have one.
    @Test func everyKindOfWriteCountsInOrder() {
        let bench = StreamBench(retention: 2)
        bench.publish("1", "2", "3")
        let sink = bench.subscribe(lastEventID: "1", holding: true)
        #expect(bench.stream.send(ServerSentEvent(data: "alone", id: "x"), toConnection: sink.connectionID))
        #expect(bench.stream.send(ServerSentEvent(data: "no id"), toConnection: sink.connectionID))
        bench.publish("4")
        bench.run()
        sink.take(.max)
        // The reset notice, the replay, the two sent alone, the live one.
        #expect(sink.events.map { $0.type ?? $0.data } == ["reset", "2", "3", "alone", "no id", "4"])
        let record = bench.record(of: sink)
        #expect(record?.deliveredCount == 6)
        #expect(record?.deliveredIds == ["2", "3", "x", "4"])
    }

    /// Events a fault dropped on the way (as a connection notes them) are skipped in the
    /// ids; the count is of those delivered.
    @Test func droppedEventsAreNotDelivered() {
        let bench = StreamBench()
        let sink = bench.subscribe()
        bench.publish("1", "2", "3", "4")
        // What `mute` does on a connection: the connection notes events it never sent.
        let tally = DeliveryTally()
        tally.noteDelivered(1)
        tally.noteDropped(2)
        tally.noteDelivered(1)
        #expect(tally.snapshot.delivered(of: ["1", "2", "3", "4"]) == ["1", "4"])
        #expect(bench.record(of: sink)?.deliveredIds == ["1", "2", "3", "4"])
    }

    /// Ids are kept for the first events only; the count goes on.
    @Test func idsAreKeptForTheFirstEventsOnly() {
        let bench = StreamBench(retention: 1000)
        let sink = bench.subscribe()
        for index in 1...450 { bench.stream.publish(ServerSentEvent(data: "\(index)")) }
        bench.run()
        let record = bench.record(of: sink)
        #expect(record?.deliveredCount == 450)
        #expect(record?.deliveredIds == (1...StreamConnectionRecord.deliveredIDLimit).map(String.init))
    }

    /// A connection that goes away with events unsent: those are not delivered, and later
    /// events are not counted for it.
    @Test func aConnectionThatLeavesKeepsWhatItTook() {
        let bench = StreamBench()
        let sink = bench.subscribe(holding: true)
        bench.publish("1", "2")
        let first = Array(SSEEncoder.encode(ServerSentEvent(data: "1", id: "1"))).count
        sink.take(first)
        sink.clientCloses()
        bench.run()
        bench.publish("3")
        let record = bench.record(of: sink)
        #expect(record?.endReason == "client_closed")
        #expect(record?.deliveredIds == ["1"])
        #expect(record?.deliveredCount == 1)
        #expect(bench.stream.subscriberCount == 0)
    }

    /// On a WebSocket, every data message is an event.
    @Test func webSocketMessagesCountAsEvents() {
        let bench = StreamBench(settings: EventStreamSettings(messages: true))
        let socket = bench.subscribe(framing: .webSocket)
        bench.stream.publish(StreamEvent(type: "progress", data: .object(["n": .integer(1)])))
        bench.stream.publish(StreamEvent(type: "progress", data: .object(["n": .integer(2)])))
        bench.run()
        #expect(socket.messages.count == 2)
        #expect(bench.record(of: socket)?.deliveredIds == ["1", "2"])
        #expect(bench.record(of: socket)?.protocol == "websocket")
    }
}
