import MockBackendClient
import MockBackendTesting
import TestSupport
import Testing

@Suite("ReconnectionPolicy bounds")
struct ReconnectionPolicyBoundsTests {
    @Test func aHugeServerRetryIsClampedInsteadOfTrapping() {
        let policy = ReconnectionPolicy(jitter: 0.25)
        let huge = policy.serverRetry(milliseconds: Int.max)
        #expect(huge == .seconds(3600))
        #expect(policy.delay(attempt: 1, serverRetry: huge, random: 0.9) == .seconds(3600))
        // Even unclamped, a retry of 13+ digits (milliseconds) must not trap.
        #expect(policy.delay(attempt: 3, serverRetry: .milliseconds(9_999_999_999_999), random: 0.5) == .seconds(3600))
        #expect(policy.delay(attempt: 1, serverRetry: .milliseconds(Int.max), random: 0.5) == .seconds(3600))
    }

    @Test func theInitialDelayIsAFloorEvenForRetryZero() {
        let policy = ReconnectionPolicy(initialDelay: .milliseconds(200), jitter: 0)
        #expect(
            policy.delay(attempt: 1, serverRetry: policy.serverRetry(milliseconds: 0), random: 0) == .milliseconds(200))
        #expect(policy.delay(attempt: 2, serverRetry: .zero, random: 0) == .milliseconds(400))
    }

    @Test func anyAttemptCountReachesTheCapWithoutTrapping() {
        let policy = ReconnectionPolicy(maxAttempts: ReconnectionPolicy.unlimitedAttempts, jitter: 1)
        for attempt in [64, 1100, Int.max] {
            #expect(policy.delay(attempt: attempt, serverRetry: nil, random: 0) == .seconds(30))
            #expect(policy.delay(attempt: attempt, serverRetry: nil, random: 0.999) < .seconds(60))
        }
    }
}

@Suite("ReconnectionStateMachine backoff reset")
struct ReconnectionResetTests {
    private let sse = "text/event-stream"

    private func machine(clock: TestClock, attempts: Int = 3, polling: Bool = true) -> ReconnectionStateMachine {
        ReconnectionStateMachine(
            policy: ReconnectionPolicy(
                initialDelay: .milliseconds(100), maxAttempts: attempts, jitter: 0, backoffResetThreshold: .seconds(60)),
            hasPollingFallback: polling, clock: clock, random: { 0 })
    }

    @Test func aServerThatOpensAndClosesAtOnceMeetsAGrowingBackoffThenPolling() {
        let clock = TestClock()
        var machine = machine(clock: clock)
        var action = machine.handle(.start)
        var waits: [Duration] = []
        for _ in 0..<4 {
            #expect(action == .connect)
            _ = machine.handle(.response(status: 200, contentType: sse))
            _ = machine.handle(.retryAdvertised(milliseconds: 0))
            action = machine.handle(.streamEnded)
            guard case .wait(let delay) = action else { break }
            waits.append(delay)
            clock.advance(by: delay)
            action = machine.handle(.delayElapsed)
        }
        #expect(waits == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
        #expect(action == .startPolling)
    }

    /// Each connection lasts a second and delivers events: not long enough to count.
    @Test(arguments: [true, false])
    func aServerThatSendsEventsAndClosesSoonMeetsAGrowingBackoffThenGivesUp(polling: Bool) {
        let clock = TestClock()
        var machine = machine(clock: clock, polling: polling)
        var action = machine.handle(.start)
        var connections = 0
        var waits: [Duration] = []
        while action == .connect, connections < 10 {
            connections += 1
            _ = machine.handle(.response(status: 200, contentType: sse))
            _ = machine.handle(.eventReceived)
            clock.advance(by: .seconds(1))
            _ = machine.handle(.eventReceived)
            action = machine.handle(.streamEnded)
            guard case .wait(let delay) = action else { break }
            waits.append(delay)
            clock.advance(by: delay)
            action = machine.handle(.delayElapsed)
        }
        #expect(connections == 4)
        #expect(waits == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
        #expect(action == (polling ? .startPolling : .stop(.retriesExhausted)))
        #expect(machine.state == (polling ? .polling : .closed(.retriesExhausted)))
    }

    @Test func aConnectionThatStaysUpPastTheThresholdResetsTheAttempts() {
        let clock = TestClock()
        var machine = machine(clock: clock)
        _ = machine.handle(.start)
        _ = machine.handle(.connectionFailed)
        _ = machine.handle(.delayElapsed)
        _ = machine.handle(.connectionFailed)
        _ = machine.handle(.delayElapsed)
        _ = machine.handle(.response(status: 200, contentType: sse))
        clock.advance(by: .seconds(59))
        #expect(machine.handle(.streamEnded) == .wait(.milliseconds(400)))
        _ = machine.handle(.delayElapsed)
        _ = machine.handle(.response(status: 200, contentType: sse))
        clock.advance(by: .seconds(60))
        #expect(machine.handle(.streamEnded) == .wait(.milliseconds(100)))
        #expect(machine.attempt == 1)
    }

    @Test func unlimitedAttemptsNeverGiveUp() {
        var machine = ReconnectionStateMachine(
            policy: ReconnectionPolicy(maxAttempts: ReconnectionPolicy.unlimitedAttempts, jitter: 0),
            hasPollingFallback: false, clock: TestClock(), random: { 0 })
        _ = machine.handle(.start)
        for _ in 0..<2000 {
            guard case .wait = machine.handle(.connectionFailed) else {
                Issue.record("gave up after \(machine.attempt) attempts")
                return
            }
            _ = machine.handle(.delayElapsed)
        }
        #expect(machine.state == .connecting(attempt: 2000))
    }

    @Test func aHugeRetryBecomesTheCap() {
        var machine = machine(clock: TestClock())
        _ = machine.handle(.start)
        _ = machine.handle(.response(status: 200, contentType: sse))
        _ = machine.handle(.retryAdvertised(milliseconds: Int.max))
        #expect(machine.serverRetry == .seconds(3600))
        #expect(machine.handle(.streamEnded) == .wait(.seconds(3600)))
    }
}
