import MockBackendSupport

/// What a `TestClock` holds: the time, the sleeps asked, the suspended sleepers and the
/// tasks waiting for sleepers to arrive.
struct TestClockState: Sendable {
    struct Sleeper: Sendable {
        let deadline: TestClock.Instant
        let order: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    struct Watcher: Sendable {
        let count: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    var now = TestClock.Instant(offset: .zero)
    var sleeps: [Duration] = []
    var sleepers: [UInt64: Sleeper] = [:]
    var watchers: [UInt64: Watcher] = [:]
    var nextID: UInt64 = 0

    mutating func newID() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// The sleepers whose deadline has come, earliest first, removed.
    mutating func takeDue() -> [CheckedContinuation<Void, any Error>] {
        let due = sleepers.filter { $0.value.deadline <= now }
            .sorted { ($0.value.deadline, $0.value.order) < ($1.value.deadline, $1.value.order) }
        for (id, _) in due { sleepers[id] = nil }
        return due.map(\.value.continuation)
    }

    /// The watchers whose count of sleepers is reached, removed.
    mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Bool, Never>] {
        let satisfied = watchers.filter { sleepers.count >= $0.value.count }
        for (id, _) in satisfied { watchers[id] = nil }
        return satisfied.map(\.value.continuation)
    }
}

extension TestClock {
    /// Suspends until the time reaches `deadline`, or throws `CancellationError` when the
    /// sleeping task is cancelled first.
    func suspend(until deadline: Instant) async throws {
        let id = state.withLock { $0.newID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (now, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Bool, Never>]) in
                    if Task.isCancelled || deadline <= state.now { return (true, []) }
                    state.sleepers[id] = TestClockState.Sleeper(
                        deadline: deadline, order: id, continuation: continuation)
                    return (false, state.takeSatisfiedWatchers())
                }
                for watcher in watchers { watcher.resume(returning: true) }
                guard now else { return }
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    continuation.resume()
                }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Suspends until at least `count` sleepers wait on the clock (`.manual` pace), so a test
    /// advances it once the code under test is asleep. False when `timeout` (real time,
    /// scaled by `TestTiming`) passes first.
    @discardableResult
    public func sleepers(atLeast count: Int, timeout: Duration = .seconds(10)) async -> Bool {
        let id = state.withLock { $0.newID() }
        let timer = Task { [state] in
            try await Task.sleep(for: TestTiming.scaled(timeout))
            state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume(returning: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let reached = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers[id] = TestClockState.Watcher(count: count, continuation: continuation)
                return false
            }
            if reached { continuation.resume(returning: true) }
        }
    }
}
