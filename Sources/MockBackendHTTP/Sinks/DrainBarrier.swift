import Dispatch
import MockBackendSupport

/// Counts the members of a `whenDrained` call down; runs its body once, when the last one
/// still waited for has arrived. Every `patience` it gives up on those that made no progress.
/// `SinkGroup.whenDrained` makes one per call.
final class DrainBarrier: Sendable {
    private struct State {
        var waiting: Set<UInt64>
        /// Members whose socket took bytes since the last check.
        var progressed: Set<UInt64> = []
        var laggards: Set<UInt64> = []
        var finished = false
    }

    private let state: LockedValue<State>
    private let patience: Duration
    private let scheduler: any StreamScheduler
    private let body: @Sendable (Set<UInt64>) -> Void

    init(
        waiting: Set<UInt64>, patience: Duration, scheduler: any StreamScheduler,
        body: @escaping @Sendable (Set<UInt64>) -> Void
    ) {
        state = LockedValue(State(waiting: waiting))
        self.patience = patience
        self.scheduler = scheduler
        self.body = body
    }

    func arrive(_ connection: UInt64) {
        let done = state.withLock { state -> Bool in
            guard !state.finished, state.waiting.remove(connection) != nil else { return false }
            return state.waiting.isEmpty
        }
        if done { finish() }
    }

    func progressed(_ connection: UInt64) {
        state.withLock { state in
            if state.waiting.contains(connection) { state.progressed.insert(connection) }
        }
    }

    /// In `patience`: members that took nothing meanwhile become laggards.
    func scheduleCheck() {
        scheduler.execute(after: patience) { [self] in
            let done = state.withLock { state -> Bool? in
                guard !state.finished else { return nil }
                let stalled = state.waiting.subtracting(state.progressed)
                state.laggards.formUnion(stalled)
                state.waiting.subtract(stalled)
                state.progressed = []
                return state.waiting.isEmpty
            }
            switch done {
            case true?: finish()
            case false?: scheduleCheck()
            case nil: break
            }
        }
    }

    /// Runs the body with the laggards, unless it has run.
    func finish() {
        let laggards = state.withLock { state -> Set<UInt64>? in
            guard !state.finished else { return nil }
            state.finished = true
            return state.laggards
        }
        if let laggards { scheduler.execute { [body] in body(laggards) } }
    }
}
