import MockBackendAPI
import MockBackendHTTP

/// Workflow sessions (`openapi/openapi.yaml`, tag `workflows`): agent loops that advance
/// on the simulation clock, one step every `paceSeconds` — an iteration starts (with a new
/// hat), then it calls a tool — until `loop.completed` after their configured iterations,
/// or, without a bound, until completed through the admin API; paused, resumed and steered
/// by clients, and driven by admin. Every event is a `WorkflowEvent` whose payload is the
/// topic's `MockBackendAPI` type.
package final class WorkflowService: Sendable {
    /// Why a session could not do what was asked.
    enum Conflict: Error, Equatable {
        case complete
        case paused
        case notPaused
    }

    package let settings: WorkflowSettings
    private let streams: EventStreamRegistry
    private let clock: SimulationClock
    private let ids: IdentifierSource
    private let sessions: RetainedJobs<WorkflowSession>

    package init(
        streams: EventStreamRegistry, clock: SimulationClock, ids: IdentifierSource, settings: WorkflowSettings
    ) {
        self.streams = streams
        self.clock = clock
        self.ids = ids
        self.settings = settings
        sessions = RetainedJobs(finishedLimit: settings.finishedSessionLimit, streams: streams) { "workflows/\($0)" }
    }

    // MARK: Sessions

    /// Every session, oldest first.
    var all: [WorkflowSession] {
        sessions.all
    }

    func session(_ id: String) -> WorkflowSession? {
        sessions[id]
    }

    /// Starts a live session; its first iteration begins now. Nil when the id is taken.
    /// Without an id one is generated (`wf_` and ten hex digits).
    func create(_ seed: Scenario.WorkflowSeed) -> WorkflowSession? {
        var seed = seed
        if !seed.id.isEmpty, session(seed.id) != nil { return nil }
        if seed.id.isEmpty {
            repeat { seed.id = "wf_" + ids.hex(length: 10) } while session(seed.id) != nil
        }
        let now = clock.now
        let stream = streams.stream(
            named: "workflows/\(seed.id)", settings: EventStreamSettings(heartbeat: true, retry: settings.retry))
        let session = WorkflowSession(seed: seed, createdAt: now, stream: stream)
        guard sessions.insert(session, id: seed.id) else { return nil }
        session.state.withLock { state in
            publish(WorkflowTopic.iterationStarted, iteration(session, state), on: session, at: now, in: &state)
            scheduleStep(of: session, at: now + session.pace, in: &state)
        }
        return session
    }

    /// Forgets every session and starts the seeds afresh. Call it after the stream
    /// registry has been cleared, so the seeds get new streams.
    package func reset(to seeds: [Scenario.WorkflowSeed]) {
        for session in sessions.removeAll() {
            session.state.withLock { state in cancelStep(in: &state) }
        }
        for seed in seeds { _ = create(seed) }
    }

    func summary(of session: WorkflowSession) -> WorkflowSummary {
        session.summary(startedAt: startedAt(of: session))
    }

    func status(of session: WorkflowSession) -> WorkflowStatus {
        session.status(at: clock.now)
    }

    func adminSnapshot(of session: WorkflowSession) -> WorkflowAdminSnapshot {
        session.adminSnapshot(at: clock.now, startedAt: startedAt(of: session))
    }

    private func startedAt(of session: WorkflowSession) -> String {
        Timestamp.iso8601(settings.epoch.addingTimeInterval(session.createdAt.secondsToTheMillisecond))
    }

    // MARK: Client actions

    /// Stops the session advancing and publishes `session.paused`.
    func pause(_ session: WorkflowSession) -> Result<WorkflowStatus, Conflict> {
        session.state.withLock { state in
            if state.mode == .complete { return .failure(.complete) }
            if state.paused { return .failure(.paused) }
            let now = clock.now
            state.remainingAtPause = max(.zero, (state.nextStep ?? now) - now)
            cancelStep(in: &state)
            state.banked = state.elapsed(at: now)
            state.runningSince = nil
            state.paused = true
            publish(WorkflowTopic.sessionPaused, iteration(session, state), on: session, at: now, in: &state)
            return .success(session.status(of: state, at: now))
        }
    }

    /// Lets a paused session go on where it stopped, and publishes `session.resumed`.
    func resume(_ session: WorkflowSession) -> Result<WorkflowStatus, Conflict> {
        session.state.withLock { state in
            if state.mode == .complete { return .failure(.complete) }
            guard state.paused else { return .failure(.notPaused) }
            let now = clock.now
            state.paused = false
            state.runningSince = now
            publish(WorkflowTopic.sessionResumed, iteration(session, state), on: session, at: now, in: &state)
            scheduleStep(of: session, at: now + state.remainingAtPause, in: &state)
            return .success(session.status(of: state, at: now))
        }
    }

    /// Publishes `session.steered` with the client's message; a paused session takes it too.
    func steer(_ session: WorkflowSession, message: String) -> Result<WorkflowStatus, Conflict> {
        session.state.withLock { state in
            if state.mode == .complete { return .failure(.complete) }
            let now = clock.now
            let steering = WorkflowSteering(
                message: message, iteration: state.iteration, hat: session.hat(of: state.iteration))
            publish(WorkflowTopic.sessionSteered, steering, on: session, at: now, in: &state)
            return .success(session.status(of: state, at: now))
        }
    }

    // MARK: Admin actions

    /// Publishes any event on a live session's stream.
    func publishEvent(
        _ session: WorkflowSession, topic: String, payload: [String: JSONValue]
    ) -> Result<(id: String, event: WorkflowEvent), Conflict> {
        session.state.withLock { state in
            if state.mode == .complete { return .failure(.complete) }
            let (logged, event) = publish(topic: topic, payload, on: session, at: clock.now, in: &state)
            return .success((logged.wireID, event))
        }
    }

    /// Publishes `loop.completed` now and ends the session and its stream.
    func complete(_ session: WorkflowSession) -> Result<WorkflowStatus, Conflict> {
        let result = session.state.withLock { state -> Result<WorkflowStatus, Conflict> in
            if state.mode == .complete { return .failure(.complete) }
            let now = clock.now
            finish(session, reason: "admin", in: &state, at: now)
            return .success(session.status(of: state, at: now))
        }
        if case .success = result { end(session) }
        return result
    }

    // MARK: Simulation

    /// One step: the iteration's tool call; or the next iteration, in the next hat; or,
    /// after the last iteration, `loop.completed`.
    private func step(_ session: WorkflowSession, generation: UInt64) {
        let completed = session.state.withLock { state -> Bool in
            guard state.generation == generation, state.mode == .live, !state.paused, let due = state.nextStep
            else { return false }
            // The step's own time, not when the timer got to run: a real clock fires a little late.
            let now = max(due, state.lastEventAt)
            if !state.toolCalled {
                state.toolCalled = true
                let call = WorkflowToolCall(
                    iteration: state.iteration, hat: session.hat(of: state.iteration), tool: pickTool())
                publish(WorkflowTopic.toolCalled, call, on: session, at: now, in: &state)
            } else if session.continues(after: state.iteration) {
                let from = session.hat(of: state.iteration)
                state.iteration += 1
                state.toolCalled = false
                let to = session.hat(of: state.iteration)
                publish(WorkflowTopic.iterationStarted, iteration(session, state), on: session, at: now, in: &state)
                if from != to {
                    publish(
                        WorkflowTopic.hatChanged, WorkflowHatChange(from: from, to: to), on: session, at: now,
                        in: &state)
                }
            } else {
                finish(session, reason: WorkflowLoopCompletion.maxIterations, in: &state, at: now)
                return true
            }
            scheduleStep(of: session, at: due + session.pace, in: &state)
            return false
        }
        if completed { end(session) }
    }

    /// Ends a completed session's stream; the oldest completed sessions past the bound are
    /// forgotten.
    private func end(_ session: WorkflowSession) {
        session.stream.finish()
        sessions.finished(session.id)
    }

    /// Marks the session complete and publishes `loop.completed`; the caller ends the
    /// stream once the lock is released.
    private func finish(
        _ session: WorkflowSession, reason: String, in state: inout WorkflowSession.State, at now: Duration
    ) {
        cancelStep(in: &state)
        state.banked = state.elapsed(at: now)
        state.runningSince = nil
        state.mode = .complete
        let completion = WorkflowLoopCompletion(iterations: state.iteration, reason: reason)
        publish(WorkflowTopic.loopCompleted, completion, on: session, at: now, in: &state)
    }

    /// Schedules the next step at clock time `due`, replacing any scheduled one.
    private func scheduleStep(of session: WorkflowSession, at due: Duration, in state: inout WorkflowSession.State) {
        cancelStep(in: &state)
        let generation = state.generation
        state.nextStep = due
        state.timer = clock.schedule(after: max(.zero, due - clock.now)) { [weak self, weak session] in
            guard let self, let session else { return }
            step(session, generation: generation)
        }
    }

    private func cancelStep(in state: inout WorkflowSession.State) {
        if let timer = state.timer { clock.cancel(timer) }
        state.timer = nil
        state.nextStep = nil
        state.generation &+= 1
    }

    private func pickTool() -> String {
        guard !settings.tools.isEmpty else { return "tool" }
        return settings.tools[ids.number(in: 0...(settings.tools.count - 1))]
    }

    /// Where the session is: the payload of `iteration.started`, `session.paused` and
    /// `session.resumed`.
    private func iteration(_ session: WorkflowSession, _ state: WorkflowSession.State) -> WorkflowIteration {
        WorkflowIteration(iteration: state.iteration, hat: session.hat(of: state.iteration))
    }

    /// Publishes a typed payload under `topic`. Called under the session's lock.
    @discardableResult
    private func publish(
        _ topic: String, _ payload: some Encodable, on session: WorkflowSession, at now: Duration,
        in state: inout WorkflowSession.State
    ) -> (LoggedEvent, WorkflowEvent) {
        // The typed payloads are structs of strings and integers: they always encode as objects.
        var fields: [String: JSONValue] = [:]
        if case .object(let object)? = try? JSONValue(encoding: payload) { fields = object }
        return publish(topic: topic, fields, on: session, at: now, in: &state)
    }

    /// Publishes `event: workflow` with `{"topic","ts","payload"}`. Called under the
    /// session's lock. `ts` never goes back, even when a step fires late on a real clock.
    @discardableResult
    private func publish(
        topic: String, _ payload: [String: JSONValue], on session: WorkflowSession, at now: Duration,
        in state: inout WorkflowSession.State
    ) -> (LoggedEvent, WorkflowEvent) {
        state.lastEventAt = max(state.lastEventAt, now)
        let ts = settings.epochMilliseconds + state.lastEventAt.wholeMilliseconds
        let event = WorkflowEvent(topic: topic, ts: ts, payload: payload)
        return (session.stream.publish(event), event)
    }
}
