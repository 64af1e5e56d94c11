import MockBackendSupport

/// A clock for tests of code that takes `any Clock<Duration>` (the client's `EventSource`,
/// `StatusPoller`, `JobTracker`): time moves only when the test says so, and every sleep
/// asked of it is recorded exactly, so a test checks a 5 s poll interval without waiting 5 s.
///
/// Two paces:
/// - `.manual` (the default): a sleeper suspends until `advance(by:)` or `advance(to:)`
///   moves the time to its deadline; sleepers due together wake in deadline order.
///   `sleepers(atLeast:)` waits until the code under test is asleep, so the test knows
///   when to advance.
/// - `.automatic(divisor:)`: a sleep passes by itself, in `1/divisor` of its length in real
///   time, then moves the time by the whole sleep; for code that sleeps many times on its
///   own (backoff, polling) while the test watches the server.
///
/// ```swift
/// let clock = TestClock()
/// let poller = StatusPoller<ImportStatus>(url: url, interval: .seconds(5), clock: clock)
/// … // the poller reads once, then sleeps
/// await clock.sleepers(atLeast: 1)
/// clock.advance(by: .seconds(5))       // the next read happens now
/// #expect(clock.sleeps == [.seconds(5)])
/// ```
public final class TestClock: Clock, Sendable {
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the clock was made.
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "\(offset)" }
    }

    /// How time passes.
    public enum Pace: Sendable, Equatable {
        /// Only `advance` moves it.
        case manual
        /// Each sleep passes by itself in `1/divisor` of its length in real time.
        case automatic(divisor: Int)
    }

    public let pace: Pace
    let state = LockedValue(TestClockState())

    public init(pace: Pace = .manual) {
        self.pace = pace
    }

    /// A clock whose sleeps pass by themselves, `divisor` times faster than real time.
    public static func automatic(divisor: Int = 100) -> TestClock {
        TestClock(pace: .automatic(divisor: divisor))
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Every sleep asked of the clock so far, as the length from the time it was asked, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// How many sleepers are waiting now (`.manual` pace).
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let wait = state.withLock { state -> Duration in
            let wait = state.now.duration(to: deadline)
            state.sleeps.append(wait)
            return wait
        }
        switch pace {
        case .automatic(let divisor):
            try await Task.sleep(for: max(wait, .zero) / max(divisor, 1))
            advance(to: deadline)
        case .manual:
            try await suspend(until: deadline)
        }
    }

    /// Moves the time on by `duration`, waking every sleeper whose deadline it reaches.
    public func advance(by duration: Duration) {
        let target = now.advanced(by: duration)
        advance(to: target)
    }

    /// Moves the time to `instant` (never back), waking every sleeper whose deadline it reaches.
    public func advance(to instant: Instant) {
        let (due, watchers) = state.withLock { state in
            state.now = max(state.now, instant)
            return (state.takeDue(), state.takeSatisfiedWatchers())
        }
        for sleeper in due { sleeper.resume(returning: ()) }
        for watcher in watchers { watcher.resume(returning: true) }
    }
}
