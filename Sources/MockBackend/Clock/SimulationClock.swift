import Dispatch
import MockBackendHTTP
import MockBackendSupport

/// The one clock behind everything the mock simulates over time: job progress,
/// generations, workflow sessions, session TTLs, user-info idle closes and heartbeats.
///
/// In `.real` mode simulated time runs at `speed` times real time; in `.manual` mode it
/// stands still until `advance(by:)` moves it, firing every timer that falls due, in due
/// order, so a test gets the same events in the same order on every run.
///
/// Timers due at the same instant fire in this order: first the timers of what happens
/// (session expiries, job and generation steps, workflow iterations), in the order they
/// were scheduled; then housekeeping (`Order.housekeeping`: idle closes and heartbeats),
/// which looks at the state those left. So a stream whose session expires at the instant
/// it would be closed as idle gets `SESSION_EXPIRATION`, not the idle close.
///
/// Invariant: `state` is only read and changed under its lock, and actions run outside
/// it, so an action may schedule or cancel timers.
public final class SimulationClock: Sendable {
    /// How simulated time passes.
    public enum Mode: Sendable, Equatable {
        case real(speed: Double)
        case manual
    }

    /// A scheduled action; cancel it to stop it.
    package struct Timer: Sendable, Hashable {
        let id: UInt64
    }

    /// Where a timer fires among those due at the same instant.
    package enum Order: Int, Sendable, Comparable {
        /// Something happens: an expiry, a step of a job.
        case event
        /// A look at the state the events of that instant left: idle closes, heartbeats.
        case housekeeping

        package static func < (lhs: Order, rhs: Order) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private struct Entry {
        var due: Duration
        var period: Duration?
        let order: Order
        let action: @Sendable () -> Void
    }

    private struct State {
        var mode: Mode
        /// Simulated time at `anchor`.
        var simulatedAtAnchor: Duration = .zero
        var anchor: ContinuousClock.Instant = .now
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 1
        var wakeup: DispatchSourceTimer?
    }

    private let state: LockedValue<State>
    private let queue = DispatchQueue(label: "mockbackend.clock")

    package init(mode: Mode = .real(speed: 1)) {
        state = LockedValue(State(mode: mode))
    }

    package var mode: Mode { state.withLock { $0.mode } }

    /// Simulated time since the clock started.
    package var now: Duration { state.withLock { Self.now(in: $0) } }

    private static func now(in state: State) -> Duration {
        switch state.mode {
        case .manual: state.simulatedAtAnchor
        case .real(let speed): state.simulatedAtAnchor + (ContinuousClock.now - state.anchor) * speed
        }
    }

    /// Runs `action` once, `delay` of simulated time from now.
    @discardableResult
    package func schedule(after delay: Duration, order: Order = .event, _ action: @escaping @Sendable () -> Void)
        -> Timer
    {
        add(Entry(due: .zero, period: nil, order: order, action: action), delay: delay)
    }

    /// Runs `action` every `period` of simulated time, the first time one period from now.
    @discardableResult
    package func repeating(every period: Duration, order: Order = .event, _ action: @escaping @Sendable () -> Void)
        -> Timer
    {
        add(Entry(due: .zero, period: max(period, .milliseconds(1)), order: order, action: action), delay: period)
    }

    package func cancel(_ timer: Timer) {
        state.withLock { _ = $0.entries.removeValue(forKey: timer.id) }
    }

    /// Changes the speed of a real clock; simulated time so far is kept.
    package func setSpeed(_ speed: Double) {
        state.withLock { state in
            state.simulatedAtAnchor = Self.now(in: state)
            state.anchor = .now
            if case .real = state.mode { state.mode = .real(speed: speed) }
        }
        rearm()
    }

    /// Moves a manual clock forward, firing every timer that falls due on the way, in due
    /// order (ties as the type's documentation says). Returns how many actions ran.
    @discardableResult
    package func advance(by duration: Duration) -> Int {
        let target = state.withLock { Self.now(in: $0) + max(duration, .zero) }
        var fired = 0
        while let action = nextDue(notAfter: target) {
            action()
            fired += 1
        }
        state.withLock { state in
            if state.simulatedAtAnchor < target { state.simulatedAtAnchor = target }
        }
        return fired
    }

    /// Stops every timer.
    package func stop() {
        state.withLock { state in
            state.entries = [:]
            state.wakeup?.cancel()
            state.wakeup = nil
        }
    }

    private func add(_ entry: Entry, delay: Duration) -> Timer {
        let timer = state.withLock { state -> Timer in
            var entry = entry
            entry.due = Self.now(in: state) + max(delay, .zero)
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = entry
            return Timer(id: id)
        }
        rearm()
        return timer
    }

    /// Takes the earliest entry due at or before `limit`, moves simulated time to it, and
    /// reschedules it if it repeats.
    private func nextDue(notAfter limit: Duration) -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard
                let (id, entry) = state.entries.min(by: {
                    ($0.value.due, $0.value.order, $0.key) < ($1.value.due, $1.value.order, $1.key)
                }),
                entry.due <= limit
            else { return nil }
            if case .manual = state.mode, state.simulatedAtAnchor < entry.due { state.simulatedAtAnchor = entry.due }
            if let period = entry.period {
                state.entries[id]?.due = entry.due + period
            } else {
                state.entries[id] = nil
            }
            return entry.action
        }
    }

    /// In real mode, sets the one Dispatch timer to wake at the earliest due entry.
    private func rearm() {
        state.withLock { state in
            guard case .real(let speed) = state.mode, speed > 0,
                let earliest = state.entries.values.map(\.due).min()
            else {
                state.wakeup?.cancel()
                state.wakeup = nil
                return
            }
            let wakeup = state.wakeup ?? makeWakeup()
            state.wakeup = wakeup
            wakeup.schedule(deadline: .now() + Self.realWait(until: earliest - Self.now(in: state), speed: speed))
        }
    }

    /// The longest real time the wakeup sleeps; when it wakes early it finds nothing due and
    /// sleeps again, so this only bounds the arithmetic.
    static let longestRealWait: Double = 3600

    /// Real time until `simulated` time has passed at `speed`, computed in floating point
    /// and capped at `longestRealWait`: `Duration / Double` traps on overflow, and a tiny
    /// speed (any value above 0 is allowed) makes the quotient overflow.
    static func realWait(until simulated: Duration, speed: Double) -> DispatchTimeInterval {
        let seconds = simulated.seconds
        let wait = min(max(seconds / speed, 0), longestRealWait)
        return .nanoseconds(Int((wait * 1e9).rounded(.up)))
    }

    private func makeWakeup() -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.fireDue() }
        timer.activate()
        return timer
    }

    private func fireDue() {
        let now = self.now
        while let action = nextDue(notAfter: now) { action() }
        rearm()
    }
}
