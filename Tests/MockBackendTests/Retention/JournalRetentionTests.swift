import MockBackendHTTP
import TestSupport
import Testing

@testable import MockBackend

/// What the journals keep, now that finished records are kept as bytes.
@Suite("Journal retention")
struct JournalRetentionTests {
    private func request(_ target: String, client: String, connection: UInt64 = 1, body: String = "")
        -> HTTPRequest
    {
        var request = HTTPRequest(
            method: "GET", target: target,
            headers: ["Host": "localhost", "X-Client-Id": client, "Accept": "a", "accept": "b"], body: Array(body.utf8))
        request.connectionID = connection
        return request
    }

    @Test func theRequestJournalKeepsItsCapacityNewestFirstWithEveryField() throws {
        let journal = RequestJournal(capacity: 3)
        for number in 1...7 {
            journal.record(
                request("/r/\(number)?q=\(number)", client: "c", connection: UInt64(number), body: "body \(number)"),
                status: 200 + number, duration: .microseconds(1500),
                fault: number == 7 ? FiredFault(ruleID: "fault_1", fault: .forbidden) : nil)
        }
        let entries = journal.entries()
        #expect(entries.map(\.id) == [7, 6, 5])
        let newest = try #require(entries.first)
        #expect(newest.target == "/r/7?q=7")
        #expect(newest.path == "/r/7")
        #expect(newest.status == 207)
        #expect(newest.connection == 7)
        #expect(newest.bodyExcerpt == "body 7")
        #expect(newest.bodySize == 6)
        #expect(newest.durationMs == 1.5)
        #expect(newest.fault == "forbidden fault_1")
        #expect(entries[1].fault == nil)
        // Repeated fields are joined in order (RFC 9110 §5.3); names keep their spelling.
        #expect(newest.headers["Accept"] == "a")
        #expect(newest.headers["accept"] == "b")
        #expect(newest.headers["X-Client-Id"] == "c")
        #expect(Timestamp.parse(newest.receivedAt) != nil)
        #expect(journal.clear() == 3)
        #expect(journal.entries().isEmpty)
    }

    @Test func openStreamRecordsStayAndEndedOnesAreBounded() {
        let journal = StreamJournal(capacity: 2)
        let longLived = journal.open(stream: "s", request: request("/s", client: "long"), lastEventID: nil)
        var ended: [Int] = []
        for number in 1...5 {
            let deliveries = DeliveryTally()
            let record = journal.open(
                stream: "s", request: request("/s", client: "c\(number)"), lastEventID: "\(number)",
                deliveries: deliveries)
            record.noteWritten(count: 2, ids: ["a\(number)", "b\(number)"])
            deliveries.noteDelivered(2)
            record.end(reason: number % 2 == 0 ? .clientClosed : .slowReader, advertisedRetry: 1000)
            ended.append(record.snapshot.id)
        }
        let snapshots = journal.snapshots()
        // The open record, though older than every ended one, and the last two ended.
        #expect(snapshots.map(\.id) == [longLived.snapshot.id] + ended.suffix(2))
        let last = snapshots[2]
        #expect(last.endReason == "slow_reader")
        #expect(last.endedAt != nil)
        #expect(last.lastEventId == "5")
        #expect(last.deliveredIds == ["a5", "b5"])
        #expect(last.deliveredCount == 2)
        #expect(last.client == "c5")
        #expect(last.requestHeaders["Accept"] == "a")
        #expect(snapshots[0].endedAt == nil)
        #expect(journal.snapshots(stream: "other").isEmpty)
    }

    @Test func aReconnectCarriesTheGapThroughTheKeptRecord() throws {
        let journal = StreamJournal(capacity: 10)
        journal.open(stream: "s", request: request("/s", client: "c"), lastEventID: nil)
            .end(reason: .slowReader, advertisedRetry: 250)
        journal.open(stream: "s", request: request("/s", client: "c"), lastEventID: "3")
            .end(reason: .finished, advertisedRetry: nil)
        let second = try #require(journal.snapshots().last)
        let reconnect = try #require(second.reconnect)
        #expect(reconnect.advertisedRetryMs == 250)
        #expect(reconnect.gapMs >= 0)
    }

    @Test func recordsOpenedBeforeAClearAreNotKeptWhenTheyEnd() {
        let journal = StreamJournal(capacity: 10)
        let record = journal.open(stream: "s", request: request("/s", client: "c"), lastEventID: nil)
        journal.clear()
        record.end(reason: .clientClosed, advertisedRetry: nil)
        #expect(journal.snapshots().isEmpty)
        // Nor is its end remembered as a previous connection of that client.
        journal.open(stream: "s", request: request("/s", client: "c"), lastEventID: nil).end(
            reason: .clientClosed, advertisedRetry: nil)
        #expect(journal.snapshots().first?.reconnect == nil)
    }

    @Test func theClientsRememberedForReconnectGapsAreBounded() {
        let journal = StreamJournal(capacity: 2)
        for number in 0...4 {
            journal.open(stream: "s", request: request("/s", client: "c\(number)"), lastEventID: nil)
                .end(reason: .clientClosed, advertisedRetry: nil)
        }
        // Past twice the capacity, only the most recent ends are remembered.
        let forgotten = journal.open(stream: "s", request: request("/s", client: "c0"), lastEventID: nil)
        let remembered = journal.open(stream: "s", request: request("/s", client: "c4"), lastEventID: nil)
        #expect(forgotten.snapshot.reconnect == nil)
        #expect(remembered.snapshot.reconnect != nil)
    }

    @Test func collectionsGiveBackTheRoomOfWhatLeft() {
        var table: [UInt64: String] = [:]
        var list: [Int] = []
        for number in 0..<10_000 {
            table[UInt64(number)] = "x"
            list.append(number)
        }
        let fullCapacity = table.capacity
        for number in 0..<9_990 {
            table[UInt64(number)] = nil
            table.shrinkIfSparse()
            list.removeLast()
            list.shrinkIfSparse()
        }
        #expect(table.count == 10)
        #expect(Set(table.keys) == Set(9_990..<10_000))
        #expect(table.capacity < fullCapacity / 100)
        #expect(list == Array(0..<10))
        #expect(list.capacity <= 64 * 8)
    }
}
