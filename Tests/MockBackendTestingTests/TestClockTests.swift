import MockBackendTesting
import TestSupport
import Testing

@Suite("TestClock")
struct TestClockTests {
    @Test func aManualSleeperWakesWhenTheTimeReachesItsDeadline() async throws {
        let clock = TestClock()
        let woke = Task { try await clock.sleep(for: .seconds(5)) }
        #expect(await clock.sleepers(atLeast: 1))
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await woke.value
        #expect(clock.sleeperCount == 0)
        #expect(clock.now.offset == .seconds(5))
        #expect(clock.sleeps == [.seconds(5)])
    }

    @Test func sleepersDueTogetherWakeInDeadlineOrder() async throws {
        let clock = TestClock()
        let order = Order()
        let late = Task {
            try await clock.sleep(for: .seconds(3))
            await order.append(3)
        }
        #expect(await clock.sleepers(atLeast: 1))
        let early = Task {
            try await clock.sleep(for: .seconds(1))
            await order.append(1)
        }
        #expect(await clock.sleepers(atLeast: 2))
        clock.advance(to: TestClock.Instant(offset: .seconds(10)))
        try await late.value
        try await early.value
        #expect(Set(await order.values) == [1, 3])
        #expect(clock.sleeps == [.seconds(3), .seconds(1)])
    }

    @Test func aCancelledSleeperThrowsAndLeaves() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        #expect(await clock.sleepers(atLeast: 1))
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
        #expect(await clock.sleepers(atLeast: 1, timeout: .milliseconds(50)) == false)
    }

    @Test func aPastDeadlineReturnsAtOnce() async throws {
        let clock = TestClock()
        clock.advance(by: .seconds(2))
        try await clock.sleep(until: TestClock.Instant(offset: .seconds(1)))
        #expect(clock.sleeps == [.seconds(-1)])
    }

    @Test func anAutomaticClockPassesEachSleepByItself() async throws {
        let clock = TestClock(pace: .automatic(divisor: 1_000_000))
        let start = ContinuousClock.now
        for _ in 0..<3 { try await clock.sleep(for: .seconds(3600)) }  // 3.6 ms each in real time
        #expect(ContinuousClock.now - start < TestTiming.scaled(.seconds(60)))
        #expect(clock.now.offset == .seconds(3 * 3600))
        #expect(clock.sleeps == Array(repeating: .seconds(3600), count: 3))
    }

    private actor Order {
        var values: [Int] = []
        func append(_ value: Int) { values.append(value) }
    }
}
