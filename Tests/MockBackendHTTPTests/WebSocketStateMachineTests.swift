import MockBackendTesting
import Testing

@testable import MockBackendHTTP

/// The WebSocket's decisions without a socket: pings, the idle timeout, the closing
/// handshake's timeout and a blackhole, on a manual clock (RFC 6455 §5.5.2, §7.1).
@Suite("WebSocket state machine")
struct WebSocketStateMachineTests {
    typealias Machine = WebSocketStateMachine<TestClock>
    typealias Step = Machine.Step

    static func at(_ seconds: Double) -> TestClock.Instant {
        TestClock.Instant(offset: .milliseconds(Int(seconds * 1000)))
    }

    static let timeouts = Machine.Timeouts(ping: .seconds(20), idle: .seconds(60), close: .seconds(5))

    @Test func pingsEveryIntervalWhileTheClientAnswers() {
        var machine = Machine(timeouts: Self.timeouts, openedAt: Self.at(0))
        #expect(machine.start() == Step(timer: Self.at(20)))
        #expect(machine.timerFired(at: Self.at(20), hasUnreadInput: false) == Step(action: .ping, timer: Self.at(40)))
        machine.received(at: Self.at(21))
        #expect(machine.timerFired(at: Self.at(40), hasUnreadInput: false) == Step(action: .ping, timer: Self.at(60)))
        machine.received(at: Self.at(41))
        // The idle deadline moved to 101: the ping at 60 goes, then the next at 80.
        #expect(machine.timerFired(at: Self.at(60), hasUnreadInput: false) == Step(action: .ping, timer: Self.at(80)))
        #expect(machine.state == .open)
    }

    /// A client that answers nothing is taken for gone after the idle timeout: dropped
    /// without a close frame. A pong still unread counts: it is read first.
    @Test func aSilentClientIsDroppedAfterTheIdleTimeout() {
        var machine = Machine(
            timeouts: .init(ping: nil, idle: .seconds(60), close: .seconds(5)), openedAt: Self.at(0))
        #expect(machine.start() == Step(timer: Self.at(60)))
        #expect(machine.timerFired(at: Self.at(60), hasUnreadInput: true).action == .readFirst)
        machine.received(at: Self.at(60))
        #expect(machine.afterReading(at: Self.at(60)) == Step(timer: Self.at(120)))
        #expect(machine.timerFired(at: Self.at(120), hasUnreadInput: false).action == .close(.connectionClosed))
    }

    @Test func noPingsAndNoIdleCloseWhenBothAreOff() {
        var machine = Machine(timeouts: .init(ping: nil, idle: nil, close: .seconds(5)), openedAt: Self.at(0))
        #expect(machine.start() == Step())
        #expect(machine.timerFired(at: Self.at(1000), hasUnreadInput: false) == Step())
    }

    /// The server's close frame: no more pings; the client's close frame is awaited for the
    /// close timeout, then the session ends abnormally (§7.1.1).
    @Test func aCloseFrameThatNeverComesIsGivenUpOn() {
        var machine = Machine(timeouts: Self.timeouts, openedAt: Self.at(0))
        _ = machine.start()
        #expect(machine.closeSent(at: Self.at(10)) == Step(timer: Self.at(15)))
        #expect(machine.state == .closeSent)
        #expect(machine.timerFired(at: Self.at(15), hasUnreadInput: true).action == .readFirst)
        #expect(machine.afterReading(at: Self.at(15)).action == .giveUpClosingHandshake)
        // The session over, the last writes get a fresh close timeout, then the TCP close.
        #expect(machine.finished(at: Self.at(15)) == Step(timer: Self.at(20)))
        #expect(machine.timerFired(at: Self.at(20), hasUnreadInput: false).action == .close(.connectionClosed))
    }

    /// The client closes first: the session is over at once; no timer of the open state
    /// goes on.
    @Test func aFinishedSessionOnlyWaitsForItsLastWrites() {
        var machine = Machine(timeouts: Self.timeouts, openedAt: Self.at(0))
        _ = machine.start()
        #expect(machine.finished(at: Self.at(3)) == Step(timer: Self.at(8)))
        #expect(machine.closeSent(at: Self.at(4)) == Step())
        #expect(machine.timerFired(at: Self.at(8), hasUnreadInput: false).action == .close(.connectionClosed))
    }

    /// A blackhole: no pings, no idle close; only the server ends it.
    @Test func aBlackholedConnectionIsNeverTimedOut() {
        var machine = Machine(timeouts: Self.timeouts, openedAt: Self.at(0))
        _ = machine.start()
        machine.blackholed()
        #expect(machine.timerFired(at: Self.at(20), hasUnreadInput: false) == Step())
        #expect(machine.timerFired(at: Self.at(600), hasUnreadInput: false) == Step())
        #expect(machine.state == .open)
    }
}
