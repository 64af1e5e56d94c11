import ServerSentEvents
import TestSupport
import Testing

@testable import MockBackend

@Suite("EventLog")
struct EventLogTests {
    private func log(retention: Int, count: Int) -> EventLog {
        var log = EventLog(retention: retention)
        for index in 1...count { _ = log.append(ServerSentEvent(data: "e\(index)")) }
        return log
    }

    @Test func assignsIncreasingIDs() {
        let log = log(retention: 10, count: 3)
        #expect(log.events.map(\.wireID) == ["1", "2", "3"])
        #expect(log.lastSequence == 3)
    }

    @Test func keepsOnlyTheRetainedEvents() {
        let log = log(retention: 10, count: 100)
        #expect(log.events.map(\.wireID) == (91...100).map(String.init))
        #expect(log.events.map(\.sequence) == Array(91...100))
        #expect(log.retainedCount == 10)
    }

    @Test func locatesALastEventID() {
        let log = log(retention: 10, count: 30)
        #expect(log.position(of: nil) == .none)
        #expect(log.position(of: "") == .none)
        #expect(log.position(of: "27") == .retained(27))
        #expect(log.position(of: "30") == .retained(30))
        #expect(log.position(of: "5") == .expired)
        #expect(log.position(of: "31") == .unknown)
        #expect(log.position(of: "banana") == .unknown)
        #expect(log.oldestSequence == 21)
        #expect(log.oldestWireID == "21")
    }

    @Test func readsEventsInBatchesFromASequence() {
        let log = log(retention: 10, count: 30)
        #expect(log.events(from: 28, visibleTo: nil).events.map(\.wireID) == ["28", "29", "30"])
        #expect(log.events(from: 31, visibleTo: nil).events.isEmpty)
        // Before retention: from the oldest retained.
        #expect(log.events(from: 3, visibleTo: nil).events.first?.wireID == "21")
        // Each event is 12 bytes ("id: 2x\ndata: e2x\n\n" is 19): a limit of 20 takes two.
        let (batch, next) = log.events(from: 21, visibleTo: nil, byteLimit: 20)
        #expect(batch.map(\.wireID) == ["21", "22"])
        #expect(next == 23)
        let (one, afterOne) = log.events(from: 25, visibleTo: nil, byteLimit: 1)
        #expect(one.map(\.wireID) == ["25"])
        #expect(afterOne == 26)
    }

    @Test func keepsAnAudiencesEventsFromTheOthers() {
        var log = EventLog(retention: 10)
        _ = log.append(ServerSentEvent(data: "all"))
        let mine = log.append(ServerSentEvent(data: "mine"), audience: "s1")
        _ = log.append(ServerSentEvent(data: "theirs"), audience: "s2")
        _ = log.append(ServerSentEvent(data: "all again"))
        #expect(mine.wireID == "2")
        #expect(log.events(from: 1, visibleTo: "s1").events.map(\.wireID) == ["1", "2", "4"])
        #expect(log.events(from: 1, visibleTo: "s2").events.map(\.wireID) == ["1", "3", "4"])
        #expect(log.events(from: 1, visibleTo: nil).events.map(\.wireID) == ["1", "4"])
        // The sequence to go on from counts the events skipped.
        #expect(log.events(from: 2, visibleTo: "s1", byteLimit: 1).next == 3)
        #expect(log.events(from: 3, visibleTo: "s1").events.map(\.wireID) == ["4"])
    }

    @Test func replaysTheBytesThatWentOutAcrossItsBuffers() {
        var log = EventLog(retention: 200)
        var sent: [[UInt8]] = []
        for index in 1...300 {
            let event = ServerSentEvent(
                type: index % 2 == 0 ? "even" : nil, data: String(repeating: "é\(index)", count: 100))
            sent.append(log.append(event, retry: index == 300 ? 5000 : nil).bytes)
        }
        let retained = log.events
        #expect(retained.map(\.sequence) == Array(101...300))
        #expect(retained.map(\.bytes) == Array(sent[100...]))
        let last = ServerSentEvent(type: "even", data: String(repeating: "é300", count: 100), id: "300")
        #expect(retained.last?.bytes == SSEEncoder.encode(last, retry: 5000))
        #expect(log.lastWireID == "300")
    }

    @Test func tellsWhetherAClientWouldBeReplayedAnything() {
        let log = log(retention: 10, count: 30)
        func after(_ id: String?, in log: EventLog) -> Bool { log.hasEvents(after: log.position(of: id)) }
        #expect(after(nil, in: log))
        #expect(after("29", in: log))
        #expect(!after("30", in: log))
        #expect(after("5", in: log))
        #expect(after("banana", in: log))
        #expect(!after(nil, in: EventLog(retention: 10)))
        #expect(!after("3", in: EventLog(retention: 10)))
    }

    @Test func keepsAnExplicitID() {
        var log = EventLog(retention: 5)
        let logged = log.append(ServerSentEvent(data: "x", id: "custom-1"))
        #expect(logged.wireID == "custom-1")
        #expect(logged.sequence == 1)
        #expect(log.position(of: "custom-1") == .retained(1))
    }
}
