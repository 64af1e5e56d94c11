import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport

/// One workflow session: an agent loop that runs its iterations on the simulation clock,
/// and the stream that tells them.
///
/// Invariant: the state changes and its events are published under one lock, so the
/// status and the last streamed event never disagree.
final class WorkflowSession: Sendable {
    struct State: Sendable {
        var iteration = 1
        /// Live while running or paused; complete past `loop.completed`.
        var mode = WorkflowMode.live
        var paused = false
        /// Whether the current iteration has made its tool call: the next step then starts
        /// the next iteration, or completes the loop after the last one.
        var toolCalled = false
        /// Running time before `runningSince`.
        var banked: Duration = .zero
        /// Clock time the session last started running; nil while paused or complete.
        var runningSince: Duration?
        /// Clock time of the next step; nil while paused or complete.
        var nextStep: Duration?
        /// Time that was left until the next step when the session paused.
        var remainingAtPause: Duration = .zero
        var timer: SimulationClock.Timer?
        /// Clock time of the last event published.
        var lastEventAt: Duration = .zero
        /// Increases whenever a step is scheduled or cancelled, so a step whose timer was
        /// replaced does nothing even if it had already been taken off the clock.
        var generation: UInt64 = 0

        func elapsed(at now: Duration) -> Duration {
            banked + (runningSince.map { max(.zero, now - $0) } ?? .zero)
        }
    }

    let id: String
    /// Iterations before `loop.completed`; nil: until completed through the admin API.
    let iterations: Int?
    /// The hats it cycles through, one per iteration.
    let hats: [String]
    let paceSeconds: Double
    /// Simulated time between steps.
    let pace: Duration
    /// Clock time it was created at.
    let createdAt: Duration
    let stream: EventStream
    let state: LockedValue<State>

    init(seed: Scenario.WorkflowSeed, createdAt: Duration, stream: EventStream) {
        id = seed.id
        iterations = seed.iterations.map { max(1, $0) }
        hats = seed.hats.isEmpty ? ["planner"] : seed.hats
        let pace = Duration.seconds(toTheMillisecond: seed.paceSeconds)
        self.pace = max(pace, .milliseconds(1))
        paceSeconds = self.pace.secondsToTheMillisecond
        self.createdAt = createdAt
        self.stream = stream
        state = LockedValue(State(runningSince: createdAt))
    }

    /// Whether the session goes on after `iteration`, rather than completing.
    func continues(after iteration: Int) -> Bool {
        iterations.map { iteration < $0 } ?? true
    }

    /// The hat worn in `iteration` (from 1): the hats in turn.
    func hat(of iteration: Int) -> String {
        hats[(iteration - 1) % hats.count]
    }

    /// What `GET /api/sessions` lists of it: no `mode`.
    func summary(startedAt: String) -> WorkflowSummary {
        state.withLock {
            WorkflowSummary(id: id, iteration: $0.iteration, hat: hat(of: $0.iteration), startedAt: startedAt)
        }
    }

    /// What `GET /api/sessions/{id}/status` answers at clock time `now`.
    func status(at now: Duration) -> WorkflowStatus {
        state.withLock { status(of: $0, at: now) }
    }

    func status(of state: State, at now: Duration) -> WorkflowStatus {
        WorkflowStatus(
            id: id, iteration: state.iteration, hat: hat(of: state.iteration), mode: state.mode,
            elapsedSecs: state.elapsed(at: now).secondsToTheMillisecond)
    }

    func adminSnapshot(at now: Duration, startedAt: String) -> WorkflowAdminSnapshot {
        state.withLock { state in
            let status = status(of: state, at: now)
            return WorkflowAdminSnapshot(
                id: id, iteration: status.iteration, hat: status.hat, mode: status.mode, paused: state.paused,
                elapsedSecs: status.elapsedSecs, startedAt: startedAt, iterations: iterations, hats: hats,
                paceSeconds: paceSeconds, stream: stream.name)
        }
    }
}
