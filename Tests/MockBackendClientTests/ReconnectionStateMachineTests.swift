import MockBackendClient
import TestSupport
import Testing

@Suite("ReconnectionPolicy")
struct ReconnectionPolicyTests {
    @Test func defaultsDoubleFrom200msToA30sCap() {
        let policy = ReconnectionPolicy(jitter: 0)
        let delays = (1...10).map { policy.delay(attempt: $0, serverRetry: nil, random: 0.9) }
        #expect(delays.prefix(4) == [.milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)])
        #expect(delays.last == .seconds(30))
        #expect(policy.maxAttempts == 6)
    }

    @Test func generationProfileIs1_2_4_8_8() {
        let delays = (1...5).map { ReconnectionPolicy.generation.delay(attempt: $0, serverRetry: nil, random: 0.7) }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
        #expect(ReconnectionPolicy.generation.maxAttempts == 5)
    }

    @Test func jitterStretchesUpToItsFraction() {
        let policy = ReconnectionPolicy(initialDelay: .seconds(1), jitter: 0.5)
        #expect(policy.delay(attempt: 1, serverRetry: nil, random: 0) == .seconds(1))
        #expect(policy.delay(attempt: 1, serverRetry: nil, random: 0.5) == .milliseconds(1250))
        #expect(policy.delay(attempt: 1, serverRetry: nil, random: 0.999_999) < .milliseconds(1500))
    }

    @Test func serverRetryStartsTheSeriesAndIsAFloor() {
        let policy = ReconnectionPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(2), jitter: 0)
        #expect(policy.delay(attempt: 1, serverRetry: .seconds(5), random: 0) == .seconds(5))
        #expect(policy.delay(attempt: 1, serverRetry: .milliseconds(300), random: 0) == .milliseconds(300))
        #expect(policy.delay(attempt: 2, serverRetry: .milliseconds(300), random: 0) == .milliseconds(600))
    }
}

@Suite("ReconnectionStateMachine")
struct ReconnectionStateMachineTests {
    private func machine(attempts: Int = 3, polling: Bool = false) -> ReconnectionStateMachine {
        ReconnectionStateMachine(
            policy: ReconnectionPolicy(initialDelay: .milliseconds(100), maxAttempts: attempts, jitter: 0),
            hasPollingFallback: polling, random: { 0 })
    }

    private let sse = "text/event-stream; charset=utf-8"

    @Test func connectsOpensAndBacksOffAfterADrop() {
        var machine = machine()
        #expect(machine.handle(.start) == .connect)
        #expect(machine.state == .connecting(attempt: 0))
        #expect(machine.handle(.response(status: 200, contentType: sse)) == .none)
        #expect(machine.state == .open)
        #expect(machine.handle(.connectionFailed) == .wait(.milliseconds(100)))
        #expect(machine.state == .backingOff(delay: .milliseconds(100), attempt: 1))
        #expect(machine.handle(.delayElapsed) == .connect)
        #expect(machine.state == .connecting(attempt: 1))
        #expect(machine.handle(.connectionFailed) == .wait(.milliseconds(200)))
    }

    @Test func neitherOpeningNorAnEventResetsTheAttempts() {
        var machine = machine()
        _ = machine.handle(.start)
        _ = machine.handle(.connectionFailed)
        _ = machine.handle(.delayElapsed)
        _ = machine.handle(.connectionFailed)
        #expect(machine.attempt == 2)
        _ = machine.handle(.delayElapsed)
        // Opening and delivering prove nothing: a server may send an event and close at once.
        _ = machine.handle(.response(status: 200, contentType: sse))
        #expect(machine.handle(.eventReceived) == .none)
        #expect(machine.attempt == 2)
        #expect(machine.handle(.streamEnded) == .wait(.milliseconds(400)))
        #expect(machine.attempt == 3)
    }

    @Test func honoursTheServerRetry() {
        var machine = machine()
        _ = machine.handle(.start)
        _ = machine.handle(.response(status: 200, contentType: sse))
        _ = machine.handle(.retryAdvertised(milliseconds: 5000))
        #expect(machine.handle(.streamEnded) == .wait(.seconds(5)))
    }

    @Test(
        "stops for good on 204, 401, 403, a wrong type and other client errors",
        arguments: [
            (204, "text/event-stream", EventSourceStopReason.noContent),
            (401, "application/json", .unauthorized(status: 401)),
            (403, "application/json", .unauthorized(status: 403)),
            (200, "application/json", .wrongContentType("application/json")),
            (404, "application/problem+json", .httpStatus(404)),
        ])
    func stops(status: Int, contentType: String, reason: EventSourceStopReason) {
        var machine = machine()
        _ = machine.handle(.start)
        #expect(machine.handle(.response(status: status, contentType: contentType)) == .stop(reason))
        #expect(machine.state == .closed(reason))
        // Nothing brings it back.
        #expect(machine.handle(.connectionFailed) == .none)
        #expect(machine.handle(.start) == .none)
    }

    @Test func retriesServerErrors() {
        var machine = machine()
        _ = machine.handle(.start)
        #expect(machine.handle(.response(status: 503, contentType: nil)) == .wait(.milliseconds(100)))
    }

    @Test func givesUpAfterTheLastTryOrHandsOverToPolling() {
        var plain = machine(attempts: 2)
        var polling = machine(attempts: 2, polling: true)
        for index in 0..<2 {
            _ = plain.handle(index == 0 ? .start : .delayElapsed)
            _ = polling.handle(index == 0 ? .start : .delayElapsed)
            _ = plain.handle(.connectionFailed)
            _ = polling.handle(.connectionFailed)
        }
        _ = plain.handle(.delayElapsed)
        _ = polling.handle(.delayElapsed)
        #expect(plain.handle(.connectionFailed) == .stop(.retriesExhausted))
        #expect(polling.handle(.connectionFailed) == .startPolling)
        #expect(polling.state == .polling)
        #expect(polling.handle(.pollingFinished) == .stop(.pollingFinished))
    }

    @Test func stopIsFinal() {
        var machine = machine()
        _ = machine.handle(.start)
        #expect(machine.handle(.stop(.sessionOver("Expired"))) == .stop(.sessionOver("Expired")))
        #expect(machine.handle(.delayElapsed) == .none)
    }
}
