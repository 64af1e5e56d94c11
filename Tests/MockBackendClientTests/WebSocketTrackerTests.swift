import Foundation
import MockBackend
import MockBackendAPI
import MockBackendClient
import MockBackendTesting
import TestSupport
import Testing

/// The V1 tracker against the in-process server, on the loopback transport: a whole job
/// on the socket, and every way the socket can drop, each ending in polling with the
/// outcome V2 gives for the same job.
@Suite("JobTracker on V1's progress WebSocket")
struct WebSocketTrackerTests {
    private static let thirtyRows = JobOutcome.completed(
        ImportSummary(totalRows: 30, successfulRows: 27, failedRows: 3))
    private static let hundredRows = JobOutcome.completed(
        ImportSummary(totalRows: 100, successfulRows: 100, failedRows: 0))

    @Test func followsAWholeJobOnTheSocketWhileTheWatchdogHearsIt() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await V1.upload(server, rows: 30, badEvery: 10)
            let clock = TestClock()
            let tracker = V1.tracker(server, jobId, clock: clock)
            let followed = Followed(tracker)
            tracker.start()
            #expect(await eventually { V1.subscribers(server, jobId) == 1 && clock.sleeperCount == 1 })
            #expect(clock.sleeps == [.seconds(50)])  // the watchdog, from the socket's opening

            // 30 s of nothing, an event, 30 s more: never 50 s of silence, so it stays on the
            // socket, and the watchdog next checks 50 s after the event.
            clock.advance(by: .seconds(30))
            try await advance(server, ms: 100)
            #expect(await eventually { followed.events.count == 1 })
            clock.advance(by: .seconds(30))
            #expect(await eventually { clock.sleeps.count == 2 })
            #expect(clock.sleeps.last == .seconds(20))
            #expect(tracker.phase == .streaming)

            try await runToTheEnd(server, jobId)
            let outcome = try await V1.outcome(of: tracker)
            #expect(outcome == Self.thirtyRows)
            #expect(try await V1.v2Outcome(server, jobId) == outcome)
            #expect(await eventually { followed.ended.current })
            guard case .started = followed.events.first, case .complete = followed.events.last else {
                Issue.record("expected started … complete, got \(followed.events)")
                return
            }
            #expect(followed.updates.current.compactMap(\.progress?.fraction).last == 1)
            #expect(followed.eventIDs.isEmpty)  // V1 messages have no ids
            #expect(followed.statuses.isEmpty)
            #expect(try await V1.statusReads(server, jobId) == 0)
            #expect(await eventually { V1.subscribers(server, jobId) == 0 })
            #expect(V1.sockets(server, jobId).map(\.client) == ["v1-\(jobId)"])
        }
    }

    /// `drop_after_events` ends the socket with a FIN and no close frame after two messages.
    @Test func aSocketDroppedAfterEventsHandsOverToPollingEvery3To5s() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await V1.upload(server, rows: 100)
            try await V1.fault(server, .dropAfterEvents(2, reset: false))
            let clock = TestClock()
            let draws = Draws([0, 0.25, 0.999])
            let tracker = V1.tracker(server, jobId, clock: clock, random: { draws.next() })
            let followed = Followed(tracker)
            tracker.start()
            #expect(await eventually { V1.subscribers(server, jobId) == 1 })
            for ms in [100, 200, 200] { try await advance(server, ms: ms) }
            #expect(await eventually { tracker.phase == .polling })
            #expect(await eventually { followed.events.count == 2 })
            #expect(await eventually { followed.statuses.count == 1 })  // the first read is at once
            for reads in 2...3 {
                #expect(await eventually { clock.sleeperCount == 1 })
                clock.advance(by: .seconds(5))
                #expect(await eventually { followed.statuses.count == reads })
            }

            let outcome = try await V1.finishByPolling(server, jobId, tracker, clock: clock)
            #expect(await eventually { followed.ended.current })
            #expect(outcome == Self.hundredRows)
            #expect(try await V1.v2Outcome(server, jobId) == outcome)
            #expect(followed.statuses.last?.status == .complete)
            #expect(try await V1.statusReads(server, jobId) == followed.statuses.count)
            // After the watchdog's 50 s: polls 3 s + 2 s × each draw apart.
            let polls = Array(clock.sleeps.drop { $0 == .seconds(50) })
            #expect(Array(polls.prefix(2)) == [.seconds(3), .milliseconds(3500)])
            #expect(polls.count >= 3)
            #expect(polls.allSatisfy { (.seconds(3)...(.seconds(5))).contains($0) })
        }
    }

    /// An admin disconnect: FIN without a close frame, RST, or a close frame 1001 — none is
    /// the end of the job, and none is followed by a reconnection.
    @Test(arguments: [DisconnectMode.broken, .reset, .graceful])
    func anAdminDisconnectHandsOverToPolling(_ mode: DisconnectMode) async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await V1.upload(server, rows: 100)
            let clock = TestClock()
            let tracker = V1.tracker(server, jobId, clock: clock)
            let followed = try await V1.startAndFollowTwoEvents(server, jobId, tracker)
            try await server.admin.streams.disconnect("imports/\(jobId)", mode: mode)
            #expect(await eventually { tracker.phase == .polling })

            let outcome = try await V1.finishByPolling(server, jobId, tracker, clock: clock)
            #expect(await eventually { followed.ended.current })
            #expect(outcome == Self.hundredRows)
            #expect(try await V1.v2Outcome(server, jobId) == outcome)
            #expect(followed.statuses.last?.status == .complete)
            #expect(V1.sockets(server, jobId).count == 1)  // never reopened
        }
    }

    /// A blackholed socket sends nothing more and never closes, not even when the job ends:
    /// only the watchdog can tell, after `webSocketSilence` of the client's clock.
    @Test func aBlackholedSocketIsNoticedByTheWatchdogAlone() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await V1.upload(server, rows: 30, badEvery: 10)
            try await V1.fault(server, .blackhole(afterEvents: 1))
            let clock = TestClock()
            let tracker = V1.tracker(server, jobId, clock: clock, configure: { $0.webSocketSilence = .seconds(10) })
            let followed = Followed(tracker)
            tracker.start()
            #expect(await eventually { V1.subscribers(server, jobId) == 1 && clock.sleeperCount == 1 })
            try await advance(server, ms: 100)
            #expect(await eventually { followed.events.count == 1 })
            try await runToTheEnd(server, jobId)
            try await Task.sleep(for: .milliseconds(200))
            #expect(tracker.phase == .streaming)
            #expect(followed.events.count == 1)

            clock.advance(by: .seconds(10))
            #expect(await eventually { tracker.phase.isTerminal })
            #expect(try await V1.outcome(of: tracker) == Self.thirtyRows)
            #expect(await eventually { followed.ended.current })
            #expect(try await V1.v2Outcome(server, jobId) == Self.thirtyRows)
            #expect(followed.statuses.map(\.status) == [.complete])
        }
    }

    @Test func aRefusedUpgradeGoesStraightToPolling() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await V1.upload(server, rows: 30, badEvery: 10)
            try await V1.fault(server, .refuseStream(status: 503, hang: false))
            let clock = TestClock()
            let tracker = V1.tracker(server, jobId, clock: clock)
            let followed = Followed(tracker)
            tracker.start()
            #expect(await eventually { tracker.phase == .polling && followed.statuses.count == 1 })
            #expect(V1.sockets(server, jobId).isEmpty)
            let outcome = try await V1.finishByPolling(server, jobId, tracker, clock: clock)
            #expect(await eventually { followed.ended.current })
            #expect(outcome == Self.thirtyRows)
            #expect(try await V1.v2Outcome(server, jobId) == outcome)
            #expect(followed.events.isEmpty)
            #expect(!clock.sleeps.contains(.seconds(50)))  // no watchdog: no socket
        }
    }
}
