import MockBackendHTTP
import MockBackendSupport
import ServerSentEvents
import TestSupport
import Testing

@testable import MockBackend

/// A flood (the admin push's `count`) on recording sinks, its steps and patience on the
/// bench's manual executor: it goes at its readers' pace, leaves a stalled reader behind
/// after the patience, and loses nothing for it.
@Suite("Floods at the readers' pace")
struct EventFloodTests {
    static let bound = 16 * 1024
    static let payload = String(repeating: "p", count: 500)

    /// A flood of `count` copies of the payload on `bench`'s stream; its completion is kept.
    static func flood(_ bench: StreamBench, count: Int, patience: Duration = .seconds(2))
        -> LockedValue<LoggedEvent??>
    {
        let finished = LockedValue<LoggedEvent??>(nil)
        EventFlood(
            stream: bench.stream, event: StreamEvent(ServerSentEvent(data: payload)), count: count, retry: nil,
            patience: patience, scheduler: bench.executor, isCancelled: { false }
        ) { last in finished.withLock { $0 = .some(last) } }
        .start()
        return finished
    }

    /// Lets `readers` take what they have, a slice each time, until the flood is done.
    static func read(_ readers: [RecordingSink], slice: Int, until done: () -> Bool, bench: StreamBench) {
        var rounds = 0
        while !done(), rounds < 100_000 {
            rounds += 1
            for reader in readers { reader.take(slice) }
            bench.run()
        }
    }

    @Test func aFloodGoesAtItsReadersPaceAndArrivesWholeAndInOrder() {
        let bench = StreamBench()
        let reader = RecordingSink(
            connectionID: 1, executor: bench.executor, holding: true, maxUnsentBytes: Self.bound)
        bench.subscribe(reader)
        let finished = Self.flood(bench, count: 1000)
        var largestBacklog = 0
        var rounds = 0
        while finished.current == nil, rounds < 100_000 {
            rounds += 1
            largestBacklog = max(largestBacklog, reader.unsentBytes)
            reader.take(1024)
            bench.run()
        }
        // Never past the bound: the reader that keeps reading is never dropped.
        #expect(largestBacklog <= Self.bound)
        #expect(reader.endReason == nil)
        reader.take(.max)
        #expect(reader.events.map(\.id) == (1...1000).map(String.init))
        #expect(finished.current??.wireID == "1000")
        let record = bench.record(of: reader)
        #expect(record?.deliveredCount == 1000)
        #expect(record?.deliveredIds == (1...200).map(String.init))
    }

    /// A reader that takes nothing holds the flood back for the patience once; then it is
    /// sent the rest like any broadcast and dropped at the bound, while the reader that
    /// keeps reading gets every event. The stalled one, resuming from its last id, misses
    /// nothing.
    @Test func aStalledReaderIsLeftBehindDroppedAtTheBoundAndLosesNothing() {
        let bench = StreamBench(retention: 2000)
        let stalled = RecordingSink(
            connectionID: 1, executor: bench.executor, holding: true, maxUnsentBytes: Self.bound)
        let reader = RecordingSink(
            connectionID: 2, executor: bench.executor, holding: true, maxUnsentBytes: Self.bound)
        bench.subscribe(stalled, client: "stalled")
        bench.subscribe(reader, client: "reader")
        let finished = Self.flood(bench, count: 2000)
        var rounds = 0
        while finished.current == nil, rounds < 100_000 {
            rounds += 1
            reader.take(4 * 1024)
            bench.run()
            // The stalled reader took nothing: after the patience it is no longer waited for.
            if bench.executor.pendingCount == 0, reader.unsentBytes == 0 { bench.executor.advance(by: .seconds(2)) }
        }
        reader.take(.max)
        #expect(reader.events.map(\.id) == (1...2000).map(String.init))
        #expect(reader.endReason == nil)
        #expect(stalled.endReason == .slowReader)
        #expect(bench.record(of: stalled)?.endReason == "slow_reader")
        // What it read before the drop, then a resume from there: every event, once.
        stalled.take(.max)
        let lastID = stalled.events.last?.id
        #expect(stalled.events.count < 2000)
        let resumed = bench.subscribe(lastEventID: lastID, holding: true, client: "stalled")
        Self.read([resumed], slice: 8 * 1024, until: { resumed.unsentBytes == 0 }, bench: bench)
        #expect((stalled.events + resumed.events).map(\.id) == (1...2000).map(String.init))
    }

    @Test func aFloodWithoutSubscribersIsLoggedAtOnce() {
        let bench = StreamBench(retention: 100)
        let finished = Self.flood(bench, count: 500)
        bench.run()
        #expect(finished.current??.wireID == "500")
        #expect(bench.stream.snapshot.eventCount == 500)
    }

    /// A flood stops when the request that asked for it goes away; what was logged stays.
    @Test func aCancelledFloodStopsBetweenBatches() {
        let bench = StreamBench()
        let reader = RecordingSink(connectionID: 1, executor: bench.executor, holding: true)
        bench.subscribe(reader)
        let cancelled = LockedValue(false)
        let finished = LockedValue<LoggedEvent??>(nil)
        EventFlood(
            stream: bench.stream, event: StreamEvent(ServerSentEvent(data: Self.payload)), count: 5000, retry: nil,
            patience: .seconds(2), scheduler: bench.executor, isCancelled: { cancelled.current }
        ) { last in finished.withLock { $0 = .some(last) } }
        .start()
        bench.run()
        let first = bench.stream.snapshot.eventCount
        #expect(first > 0)
        #expect(first < 5000)
        cancelled.withLock { $0 = true }
        reader.take(.max)
        bench.run()
        #expect(finished.current??.wireID == String(first))
        #expect(bench.stream.snapshot.eventCount == first)
    }
}
