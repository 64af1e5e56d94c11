import Foundation
import MockBackendAPI
import MockBackendClient
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// The timing policy of the V1 tracker, pure: when a silent socket counts as dropped, and
/// how long polling waits between reads.
@Suite("Tracking policy: silence watchdog and poll intervals")
struct TrackingPolicyTests {
    @Test func theWatchdogIsSilentOnceNothingWasHeardForTheWholeSilence() {
        let watchdog = SilenceWatchdog(silence: .seconds(50))
        #expect(watchdog.check(at: .zero) == .wait(.seconds(50)))
        #expect(watchdog.check(at: .seconds(49)) == .wait(.seconds(1)))
        #expect(watchdog.check(at: .milliseconds(49_999)) == .wait(.milliseconds(1)))
        #expect(watchdog.check(at: .seconds(50)) == .silent)
        #expect(watchdog.check(at: .seconds(300)) == .silent)
    }

    @Test func whatIsHeardPushesTheDeadlineBack() {
        var watchdog = SilenceWatchdog(silence: .seconds(50))
        watchdog.heard(at: .seconds(30))
        #expect(watchdog.check(at: .seconds(60)) == .wait(.seconds(20)))
        #expect(watchdog.check(at: .seconds(79)) == .wait(.seconds(1)))
        #expect(watchdog.check(at: .seconds(80)) == .silent)
        // A late report of an earlier time does not bring the deadline forward.
        watchdog.heard(at: .seconds(10))
        #expect(watchdog.lastHeard == .seconds(30))
        #expect(watchdog.check(at: .seconds(60)) == .wait(.seconds(20)))
        // Pings every 20 s keep it waiting for ever.
        for ping in stride(from: 40, through: 400, by: 20) {
            watchdog.heard(at: .seconds(ping))
            #expect(watchdog.check(at: .seconds(ping + 19)) == .wait(.seconds(31)))
        }
    }

    @Test func theV1ProfileWaits50sOfSilenceAndPollsEvery3To5s() {
        let profile = JobTrackerConfiguration.importV1
        #expect(profile.webSocketSilence == .seconds(50))
        #expect(
            PollInterval(base: profile.pollInterval, jitter: profile.pollJitter).range == .seconds(3)...(.seconds(5)))
        // The other profiles keep their fixed intervals.
        #expect(JobTrackerConfiguration.import.pollJitter == .zero)
        #expect(JobTrackerConfiguration.generation.pollJitter == .zero)
    }

    @Test func aPollIntervalIsItsBasePlusTheDrawnShareOfItsJitter() {
        let interval = PollInterval(base: .seconds(3), jitter: .seconds(2))
        #expect(interval.delay(random: 0) == .seconds(3))
        #expect(interval.delay(random: 0.5) == .seconds(4))
        #expect(interval.delay(random: 0.25) == .milliseconds(3500))
        let highest = interval.delay(random: 1.0.nextDown)
        #expect(highest < .seconds(5) && highest > .milliseconds(4999))
        // A source outside its contract cannot push the delay out of bounds.
        #expect(interval.delay(random: -3) == .seconds(3))
        #expect(interval.delay(random: 7) == .seconds(5))
        #expect(interval.delay(random: .nan) == .seconds(3))
        #expect(interval.delay(random: .infinity) == .seconds(5))
        for _ in 0..<1000 {
            #expect(interval.range.contains(interval.delay(random: Double.random(in: 0..<1))))
        }
        #expect(PollInterval(base: .seconds(2)).delay(random: 0.9) == .seconds(2))
    }

    /// The poller sleeps the drawn interval between reads, on the injected clock, with the
    /// injected random source.
    @Test func thePollerSleepsAJitteredIntervalBetweenReads() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 40)
            let clock = TestClock.automatic()
            let draws = Draws([0, 0.5, 0.75])
            let poller = StatusPoller<ImportStatus>(
                url: server.baseURL.appendingPathComponent(ImportPaths.statusV1(jobId: jobId)),
                interval: .seconds(3), jitter: .seconds(2), clock: clock, random: { draws.next() })
            let seen = LockedValue(0)
            let ended = LockedValue(false)
            Task {
                for try await _ in poller.statuses() { seen.withLock { $0 += 1 } }
                ended.withLock { $0 = true }
            }
            #expect(await eventually { seen.current >= 4 })
            try await server.admin.imports.complete(jobId)
            #expect(await eventually { ended.current })
            let sleeps = clock.sleeps
            #expect(Array(sleeps.prefix(3)) == [.seconds(3), .seconds(4), .milliseconds(4500)])
            #expect(sleeps.dropFirst(3).allSatisfy { $0 == .milliseconds(4500) })
            #expect(sleeps.count == seen.current - 1)
        }
    }
}
