import ServerSentEvents
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

    @Test func replaysByLastEventID() {
        let log = log(retention: 10, count: 30)
        guard case .everything(let all) = log.replay(after: nil) else {
            Issue.record("no id → everything")
            return
        }
        #expect(all.count == 10)
        guard case .after(let after) = log.replay(after: "27") else {
            Issue.record("known id → after")
            return
        }
        #expect(after.map(\.wireID) == ["28", "29", "30"])
        guard case .after(let none) = log.replay(after: "30") else {
            Issue.record("last id → nothing")
            return
        }
        #expect(none.isEmpty)
        guard case .expired(let expired) = log.replay(after: "5") else {
            Issue.record("old id → expired")
            return
        }
        #expect(expired.first?.wireID == "21")
        guard case .unknown(let unknown) = log.replay(after: "31") else {
            Issue.record("future id → unknown")
            return
        }
        #expect(unknown.count == 10)
        guard case .unknown = log.replay(after: "banana") else {
            Issue.record("foreign id → unknown")
            return
        }
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
        #expect(log.hasEvents(after: nil))
        #expect(log.hasEvents(after: "29"))
        #expect(!log.hasEvents(after: "30"))
        #expect(log.hasEvents(after: "5"))
        #expect(log.hasEvents(after: "banana"))
        #expect(!EventLog(retention: 10).hasEvents(after: nil))
        #expect(!EventLog(retention: 10).hasEvents(after: "3"))
    }

    @Test func keepsAnExplicitID() {
        var log = EventLog(retention: 5)
        let logged = log.append(ServerSentEvent(data: "x", id: "custom-1"))
        #expect(logged.wireID == "custom-1")
        #expect(logged.sequence == 1)
        guard case .after(let after) = log.replay(after: "custom-1") else {
            Issue.record("custom id known")
            return
        }
        #expect(after.isEmpty)
    }
}
