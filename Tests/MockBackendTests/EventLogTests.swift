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
        #expect(log.entries.map(\.wireID) == ["1", "2", "3"])
        #expect(log.lastSequence == 3)
    }

    @Test func keepsOnlyTheRetainedEvents() {
        let log = log(retention: 10, count: 100)
        #expect(log.retained.map(\.wireID) == (91...100).map(String.init))
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
