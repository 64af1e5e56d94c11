import MockBackendClient
import TestSupport
import Testing

@Suite("ReconnectionStateMachine: suspend, resume, reconnectNow")
struct ReconnectionLifecycleTests {
    private func machine(fallback: Bool = false) -> ReconnectionStateMachine {
        ReconnectionStateMachine(
            policy: ReconnectionPolicy(initialDelay: .seconds(1), maxAttempts: 2, jitter: 0),
            hasPollingFallback: fallback, random: { 0 })
    }

    @Test func nothingHappensBeforeStart() {
        var machine = machine()
        #expect(machine.handle(.suspend) == .none)
        #expect(machine.handle(.reconnectNow) == .none)
        #expect(machine.handle(.resume) == .none)
        #expect(machine.handle(.start) == .connect)
    }

    @Test func suspendedReportsOfTheOldConnectionChangeNothing() {
        var machine = machine()
        _ = machine.handle(.start)
        _ = machine.handle(.response(status: 200, contentType: "text/event-stream"))
        #expect(machine.handle(.suspend) == .waitForResume)
        #expect(machine.state == .suspended)
        #expect(machine.handle(.suspend) == .none)
        #expect(machine.handle(.connectionFailed) == .waitForResume)
        #expect(machine.handle(.response(status: 200, contentType: "text/event-stream")) == .waitForResume)
        #expect(machine.handle(.delayElapsed) == .waitForResume)
        #expect(machine.handle(.interrupted) == .waitForResume)
        #expect(machine.state == .suspended)
        #expect(machine.attempt == 0)
        #expect(machine.handle(.resume) == .connect)
        #expect(machine.state == .connecting(attempt: 0))
        #expect(machine.handle(.resume) == .none)
    }

    @Test func reconnectNowCountsTheAttemptsAfresh() {
        var machine = machine()
        _ = machine.handle(.start)
        #expect(machine.handle(.connectionFailed) == .wait(.seconds(1)))
        #expect(machine.handle(.reconnectNow) == .connect)
        #expect(machine.state == .connecting(attempt: 0))
        #expect(machine.attempt == 0)
        #expect(machine.handle(.interrupted) == .connect)
        // Two more failures fit in maxAttempts 2 again.
        #expect(machine.handle(.connectionFailed) == .wait(.seconds(1)))
        _ = machine.handle(.delayElapsed)
        #expect(machine.handle(.connectionFailed) == .wait(.seconds(2)))
    }

    @Test func pollingAndStoppedIgnoreTheLifecycle() {
        var polling = machine(fallback: true)
        _ = polling.handle(.start)
        for _ in 0..<2 {
            _ = polling.handle(.connectionFailed)
            _ = polling.handle(.delayElapsed)
        }
        #expect(polling.handle(.connectionFailed) == .startPolling)
        #expect(polling.handle(.suspend) == .none)
        #expect(polling.handle(.reconnectNow) == .none)
        #expect(polling.state == .polling)
        var stopped = machine()
        _ = stopped.handle(.start)
        _ = stopped.handle(.stop(.stopped))
        #expect(stopped.handle(.suspend) == .none)
        #expect(stopped.handle(.reconnectNow) == .none)
        #expect(stopped.state == .closed(.stopped))
    }
}
