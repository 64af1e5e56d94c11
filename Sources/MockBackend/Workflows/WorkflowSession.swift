import MockBackendHTTP

/// What `GET /api/sessions` lists of one session. No `mode`, like the real list endpoint:
/// clients fetch the status for it.
public struct WorkflowSummary: Codable, Sendable, Equatable {
    public var id: String
    public var iteration: Int
    public var hat: String
    /// ISO 8601 UTC: the settings' epoch plus the simulated time the session was created at.
    public var startedAt: String

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat
        case startedAt = "started_at"
    }
}

/// What `GET /api/sessions/{id}/status` answers.
public struct WorkflowStatus: Codable, Sendable, Equatable {
    public var id: String
    public var iteration: Int
    public var hat: String
    /// `live` or `complete`. A paused session is still `live`; its stream says it paused.
    public var mode: String
    /// Simulated seconds the session has run, to the millisecond: time paused does not
    /// count, and it stops at completion.
    public var elapsedSecs: Double

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat, mode
        case elapsedSecs = "elapsed_secs"
    }
}

/// What `GET /__admin/workflows` shows of one session: its status, whether it is paused,
/// and how it was configured.
public struct WorkflowAdminSnapshot: Codable, Sendable, Equatable {
    public var id: String
    public var iteration: Int
    public var hat: String
    public var mode: String
    public var paused: Bool
    public var elapsedSecs: Double
    public var startedAt: String
    public var iterations: Int
    public var hats: [String]
    public var paceSeconds: Double
    public var stream: String

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat, mode, paused, iterations, hats, paceSeconds, stream
        case elapsedSecs = "elapsed_secs"
        case startedAt = "started_at"
    }
}

/// One workflow session: an agent loop that runs its iterations on the simulation clock,
/// and the stream that tells them.
///
/// Invariant: the state changes and its events are published under one lock, so the
/// status and the last streamed event never disagree.
final class WorkflowSession: Sendable {
    enum Mode: String, Sendable {
        /// Running or paused.
        case live
        /// Past `loop.completed`; the stream has ended.
        case complete
    }

    struct State: Sendable {
        var iteration = 1
        var mode = Mode.live
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
    /// Iterations before `loop.completed`.
    let iterations: Int
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
        iterations = max(1, seed.iterations)
        hats = seed.hats.isEmpty ? ["planner"] : seed.hats
        let pace = Duration.seconds(toTheMillisecond: seed.paceSeconds)
        self.pace = max(pace, .milliseconds(1))
        paceSeconds = self.pace.secondsToTheMillisecond
        self.createdAt = createdAt
        self.stream = stream
        state = LockedValue(State(runningSince: createdAt))
    }

    /// The hat worn in `iteration` (from 1): the hats in turn.
    func hat(of iteration: Int) -> String {
        hats[(iteration - 1) % hats.count]
    }

    func summary(startedAt: String) -> WorkflowSummary {
        state.withLock {
            WorkflowSummary(id: id, iteration: $0.iteration, hat: hat(of: $0.iteration), startedAt: startedAt)
        }
    }

    func status(at now: Duration) -> WorkflowStatus {
        state.withLock { status(of: $0, at: now) }
    }

    func status(of state: State, at now: Duration) -> WorkflowStatus {
        WorkflowStatus(
            id: id, iteration: state.iteration, hat: hat(of: state.iteration), mode: state.mode.rawValue,
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
