import Foundation
import MockBackend
import MockBackendAPI
import MockBackendClient
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// The V1 tracker's failures, cancellation, pause and pings, against the in-process server.
@Suite("JobTracker on V1's progress WebSocket: failures, cancellation, pings")
struct WebSocketTrackerLifecycleTests {
    /// One failed job followed on the socket, one whose socket is refused: each gets the
    /// failure its path carries, the one V2 gives on the same path.
    @Test func aFailedJobGivesTheFailureOutcomeFromEitherPath() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let polled = try await V1.upload(server, rows: 100)
            let streamed = try await V1.upload(server, rows: 100)
            try await V1.fault(server, .refuseStream(status: 503, hang: false), times: 1)
            let clock = TestClock()
            let pollingTracker = V1.tracker(server, polled, clock: clock)
            pollingTracker.start()
            #expect(await eventually { pollingTracker.phase == .polling })
            let socketTracker = V1.tracker(server, streamed, clock: clock)
            let followed = try await V1.startAndFollowTwoEvents(server, streamed, socketTracker)

            for jobId in [streamed, polled] {
                try await server.admin.imports.fail(jobId, code: "DISK_FULL", message: "No space")
            }
            let onTheSocket = try await V1.outcome(of: socketTracker)
            #expect(await eventually { followed.ended.current })
            #expect(onTheSocket == .failed(JobFailure(code: "DISK_FULL", message: "No space")))
            #expect(try await V1.v2Outcome(server, streamed) == onTheSocket)
            guard case .error = followed.events.last else {
                Issue.record("expected the error message last, got \(followed.events)")
                return
            }
            #expect(try await V1.statusReads(server, streamed) == 0)

            let byPolling = try await V1.finishByPolling(server, polled, pollingTracker, clock: clock)
            #expect(byPolling == onTheSocket)  // the status carries the reason too
            let status = try JSONDecoder().decode(
                ImportStatus.self,
                from: Data(try await server.request("GET", "/" + ImportPaths.status(jobId: polled)).body))
            #expect(ImportJobKind.outcome(of: status) == byPolling)
        }
    }

    /// Cancelling tracking — by `cancel()`, or by cancelling the task that iterates
    /// `updates` — closes the socket: the job's stream has no subscriber left.
    @Test(arguments: [false, true])
    func cancellingTrackingClosesTheSocket(byTheIteratingTask: Bool) async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await V1.upload(server, rows: 100)
            let tracker = V1.tracker(server, jobId, clock: TestClock())
            let iterated = LockedValue(0)
            let iterating = Task {
                for try await _ in tracker.updates { iterated.withLock { $0 += 1 } }
            }
            tracker.start()
            try await advance(server, ms: 100)
            #expect(await eventually { V1.subscribers(server, jobId) == 1 && iterated.current == 1 })
            if byTheIteratingTask { iterating.cancel() } else { tracker.cancel() }
            #expect(await eventually { V1.subscribers(server, jobId) == 0 })
            #expect(tracker.phase == .cancelled)
            await #expect(throws: CancellationError.self) { try await tracker.outcome }
            #expect(await eventually { V1.sockets(server, jobId).first?.endedAt != nil })
        }
    }

    /// Cancelling the task that awaits `outcome` ends that wait only: tracking goes on.
    @Test(.timeLimit(.minutes(1))) func cancellingAnOutcomeWaitLeavesTrackingRunning() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await V1.upload(server, rows: 100)
            let tracker = V1.tracker(server, jobId, clock: TestClock())
            tracker.start()
            #expect(await eventually { V1.subscribers(server, jobId) == 1 })
            let waiting = Task { try await tracker.outcome }
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            #expect(tracker.phase == .streaming)
            #expect(V1.subscribers(server, jobId) == 1)
            tracker.cancel()
        }
    }

    /// V1 has no resume: the socket opened on `resume()` replays the whole history, and the
    /// tracker reports only what it had not.
    @Test func aSocketReopenedAfterAPauseReportsEveryEventOnce() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await V1.upload(server, rows: 100)
            let clock = TestClock()
            let tracker = V1.tracker(server, jobId, clock: clock)
            let followed = try await V1.startAndFollowTwoEvents(server, jobId, tracker)
            tracker.suspend()
            #expect(await eventually { V1.subscribers(server, jobId) == 0 })
            for ms in [200, 200] { try await advance(server, ms: ms) }  // two events while away
            clock.advance(by: .seconds(10))
            tracker.resume()
            #expect(await eventually { V1.sockets(server, jobId).count == 2 })
            try await runToTheEnd(server, jobId)
            #expect(
                try await V1.outcome(of: tracker)
                    == .completed(ImportSummary(totalRows: 100, successfulRows: 100, failedRows: 0)))
            #expect(await eventually { followed.ended.current })
            let processed = followed.events.compactMap { event -> Int? in
                if case .progress(let progress) = event { progress.processedRows } else { nil }
            }
            #expect(processed == Array(stride(from: 10, through: 100, by: 10)))
            #expect(followed.events.filter { if case .started = $0 { true } else { false } }.count == 1)
            #expect(try await V1.statusReads(server, jobId) == 0)
        }
    }

    /// A job that sends nothing for longer than the silence is still alive while the
    /// server's pings arrive: the watchdog counts them, and the socket stays.
    @Test func pingsKeepAQuietSocketFromTheWatchdog() async throws {
        var configuration = manualServerConfiguration()
        configuration.http.webSocket.pingInterval = .milliseconds(50)
        try await withRunningServer(configuration) { server in
            let jobId = try await V1.upload(server, rows: 100)
            let clock = TestClock()
            let transport = RecordingTransport(inner: LoopbackWebSocketTransport())
            let tracker = V1.tracker(server, jobId, clock: clock, transport: transport) {
                $0.webSocketSilence = .seconds(10)
            }
            tracker.start()
            #expect(await eventually { clock.sleeperCount == 1 })
            // 24 s of the client's clock without a message, a ping in every 4 s of it.
            for _ in 0..<6 {
                let seen = transport.pings
                #expect(await eventually { transport.pings > seen })
                clock.advance(by: .seconds(4))
            }
            #expect(await eventually { clock.sleeperCount == 1 })
            #expect(tracker.phase == .streaming)
            #expect(V1.subscribers(server, jobId) == 1)
            tracker.cancel()
        }
    }
}
