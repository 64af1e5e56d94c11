import MockBackendTesting
import Testing

@testable import MockBackendHTTP

/// The connection's decisions without a socket: timeouts, reading, lingering and closing,
/// on a manual clock (RFC 9112 §9.6).
@Suite("HTTP/1.1 connection state machine")
struct HTTPConnectionStateMachineTests {
    typealias Machine = HTTPConnectionStateMachine<TestClock>
    typealias Step = Machine.Step

    static let timeouts = Machine.Timeouts(
        header: .seconds(10), body: .seconds(60), idle: .seconds(60), linger: .seconds(1))

    /// Instants as offsets from the start.
    static func at(_ seconds: Double) -> TestClock.Instant {
        TestClock.Instant(offset: .milliseconds(Int(seconds * 1000)))
    }

    @Test func theHeaderTimeoutRunsUntilARequestArrivesAndNoneWhileItIsAnswered() {
        var machine = Machine(timeouts: Self.timeouts)
        #expect(machine.start(at: Self.at(0)) == Step(timer: Self.at(10)))
        #expect(machine.deadlinePhase == .header)
        // A request: no timeout while it is answered; the timer stays set (it fires and
        // finds nothing to do).
        #expect(machine.update(.responding, at: Self.at(1)) == Step())
        #expect(machine.deadline == nil)
        #expect(machine.timerFired(at: Self.at(10), hasUnreadInput: false) == Step())
        // Done: the idle timeout counts from the end of the response.
        #expect(
            machine.responseCompleted(keepAlive: true, writesPending: false, at: Self.at(2)).action == .processPending)
        let idle = machine.update(.betweenRequests, at: Self.at(2))
        #expect(idle == Step(timer: Self.at(62)))
        #expect(machine.deadlinePhase == .idle)
    }

    /// A busy keep-alive connection does not touch its timer on every request: a deadline
    /// that moved later is found when the timer fires, and slept on.
    @Test func aDeadlineThatMovedLaterIsSleptOnNotRearmedPerRequest() {
        var machine = Machine(timeouts: Self.timeouts)
        #expect(machine.start(at: Self.at(0)).timer == Self.at(10))
        for second in 1...30 {
            _ = machine.update(.responding, at: Self.at(Double(second)))
            _ = machine.responseCompleted(keepAlive: true, writesPending: false, at: Self.at(Double(second)))
            #expect(machine.update(.betweenRequests, at: Self.at(Double(second))).timer == nil)
        }
        // The timer set at the start fires; the idle deadline is now 90 s: sleep on.
        #expect(machine.timerFired(at: Self.at(10), hasUnreadInput: false) == Step(timer: Self.at(90)))
        #expect(machine.timerFired(at: Self.at(90), hasUnreadInput: false).action == .close(.connectionClosed))
    }

    /// A client trickling bytes of a head cannot extend its deadline (slowloris).
    @Test func aTrickledHeadTimesOutAtItsFirstDeadline() {
        var machine = Machine(timeouts: Self.timeouts)
        _ = machine.start(at: Self.at(0))
        for second in 1...9 { #expect(machine.update(.readingHead, at: Self.at(Double(second))) == Step()) }
        #expect(machine.timerFired(at: Self.at(10), hasUnreadInput: false).action == .close(.connectionClosed))
        #expect(machine.phase == .closed)
    }

    /// Never close on a request that may be in flight: read what waits first; the deadline
    /// stands unless a request completes. After the idle timeout, input that is not yet a
    /// request starts a head: the header timeout runs from then.
    @Test func unreadInputIsReadBeforeADeadlineCloses() {
        var machine = Machine(timeouts: Self.timeouts)
        _ = machine.start(at: Self.at(0))
        #expect(machine.timerFired(at: Self.at(10), hasUnreadInput: true).action == .readFirst(.header))
        #expect(machine.deadlineAfterReading(.header, at: Self.at(10)).action == .close(.connectionClosed))

        var idle = Machine(timeouts: Self.timeouts)
        _ = idle.start(at: Self.at(0))
        _ = idle.update(.responding, at: Self.at(0))
        _ = idle.responseCompleted(keepAlive: true, writesPending: false, at: Self.at(0))
        _ = idle.update(.betweenRequests, at: Self.at(0))
        #expect(idle.timerFired(at: Self.at(60), hasUnreadInput: true).action == .readFirst(.idle))
        #expect(idle.deadlineAfterReading(.idle, at: Self.at(60)) == Step(timer: Self.at(70)))
        #expect(idle.deadlinePhase == .header)
        // A request the read completed moved the phase: nothing to do.
        var answered = Machine(timeouts: Self.timeouts)
        _ = answered.start(at: Self.at(0))
        _ = answered.update(.responding, at: Self.at(10))
        #expect(answered.deadlineAfterReading(.header, at: Self.at(10)) == Step())
    }

    /// The last response: once written, FIN and a drain of the client's input, for the
    /// linger timeout; a transport that does not linger (TLS) closes at once.
    @Test func aClosingConnectionLingersAfterItsLastWrites() {
        var machine = Machine(timeouts: Self.timeouts)
        _ = machine.start(at: Self.at(0))
        #expect(machine.responseCompleted(keepAlive: false, writesPending: true, at: Self.at(1)) == Step())
        #expect(machine.phase == .closingAfterWrites)
        #expect(
            machine.writesDrained(responseInFlight: false, at: Self.at(2)) == Step(action: .linger, timer: Self.at(3)))
        #expect(machine.phase == .lingering)
        #expect(machine.timerFired(at: Self.at(3), hasUnreadInput: true).action == .close(.connectionClosed))

        var tls = Machine(timeouts: Self.timeouts, lingers: false)
        _ = tls.start(at: Self.at(0))
        #expect(tls.closeAfterWrites(writesPending: false, at: Self.at(1)).action == .close(.connectionClosed))
    }

    /// A FIN ends a stream at once; otherwise the requests already read are answered and
    /// the connection closes as soon as nothing is in flight — however the FIN and the
    /// response cross (what `printf … | nc -N` does).
    @Test func aFINIsActedOnWhenTheResponseInFlightCompletes() {
        var streaming = Machine(timeouts: Self.timeouts)
        _ = streaming.start(at: Self.at(0))
        #expect(streaming.peerDidClose(streaming: true).action == .close(.clientClosed))

        var machine = Machine(timeouts: Self.timeouts)
        _ = machine.start(at: Self.at(0))
        _ = machine.update(.responding, at: Self.at(0))
        #expect(machine.peerDidClose(streaming: false).action == .stopReadingAndProcess)
        // The response is still in flight: nothing closes yet.
        #expect(
            machine.pendingProcessed(
                idle: false, writesPending: true, canReadMore: false, activity: .responding, at: Self.at(0)) == Step())
        // It completes: keep-alive is off after a FIN, and the connection closes at once.
        #expect(
            machine.responseCompleted(keepAlive: true, writesPending: false, at: Self.at(1)).action == .processPending)
        #expect(
            machine.pendingProcessed(
                idle: true, writesPending: false, canReadMore: true, activity: .betweenRequests, at: Self.at(1)
            ).action == .close(.clientClosed))

        var lingering = Machine(timeouts: Self.timeouts)
        _ = lingering.start(at: Self.at(0))
        _ = lingering.closeAfterWrites(writesPending: false, at: Self.at(0))
        #expect(lingering.peerDidClose(streaming: false).action == .close(.clientClosed))
    }

    /// A FIN before a whole head: nothing to answer, the connection closes at once.
    @Test func aFINBeforeAWholeHeadClosesAtOnce() {
        var machine = Machine(timeouts: Self.timeouts)
        _ = machine.start(at: Self.at(0))
        _ = machine.update(.readingHead, at: Self.at(0))
        #expect(machine.peerDidClose(streaming: false).action == .stopReadingAndProcess)
        #expect(
            machine.pendingProcessed(
                idle: true, writesPending: false, canReadMore: false, activity: .readingHead, at: Self.at(0)
            ).action == .close(.clientClosed))
    }

    /// The server stops: an idle connection closes gracefully, with a short linger; a
    /// response in flight finishes first and is not kept alive.
    @Test func aStoppingServerClosesIdleConnectionsWithAShortLinger() {
        var machine = Machine(timeouts: Self.timeouts)
        _ = machine.start(at: Self.at(0))
        machine.beginShutdown()
        #expect(
            machine.pendingProcessed(
                idle: true, writesPending: false, canReadMore: true, activity: .betweenRequests, at: Self.at(5)
            ) == Step(action: .linger, timer: Self.at(5.2)))

        var busy = Machine(timeouts: Self.timeouts)
        _ = busy.start(at: Self.at(0))
        _ = busy.update(.responding, at: Self.at(0))
        busy.beginShutdown()
        #expect(busy.responseCompleted(keepAlive: true, writesPending: true, at: Self.at(1)) == Step())
        #expect(busy.phase == .closingAfterWrites)
    }

    @Test func aClosedConnectionDecidesNothingMore() {
        var machine = Machine(timeouts: Self.timeouts)
        _ = machine.start(at: Self.at(0))
        #expect(machine.close(.aborted).action == .close(.aborted))
        #expect(machine.close(.clientClosed) == Step())
        #expect(machine.update(.betweenRequests, at: Self.at(1)) == Step())
        #expect(machine.timerFired(at: Self.at(100), hasUnreadInput: false) == Step())
        #expect(machine.peerDidClose(streaming: true) == Step())
    }
}
