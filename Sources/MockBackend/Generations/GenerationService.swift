import MockBackendAPI
import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Image generations: tokens spent, progress on the simulation clock, told by a stream
/// (`progress`, then `completed` or `failed`) and by polling, from one state.
package final class GenerationService: Sendable {
    package let settings: GenerationSettings
    private let accounts: AccountStore
    private let streams: EventStreamRegistry
    private let clock: SimulationClock
    private let ids: IdentifierSource
    private let generations: RetainedJobs<Generation>

    package init(
        accounts: AccountStore, streams: EventStreamRegistry, clock: SimulationClock, ids: IdentifierSource,
        settings: GenerationSettings
    ) {
        self.accounts = accounts
        self.streams = streams
        self.clock = clock
        self.ids = ids
        self.settings = settings
        generations = RetainedJobs(finishedLimit: settings.finishedJobLimit, streams: streams) {
            "generations/\($0)"
        }
    }

    /// Spends one of the user's tokens and starts a generation for the session `sessionId`;
    /// 402 when none is left.
    func start(prompt: String, userId: Int, sessionId: String) throws -> Generation {
        let spent = accounts.update(userId) { user -> Bool in
            guard user.tokens > 0 else { return false }
            user.tokens -= 1
            return true
        }
        guard spent == true else {
            throw ProblemDetails(
                status: 402, code: "INSUFFICIENT_TOKENS", detail: "No tokens left; every generation costs one.")
        }
        let id = "gen_" + ids.hex(length: 12)
        let stream = streams.stream(named: "generations/\(id)", settings: EventStreamSettings(heartbeat: true))
        let generation = Generation(id: id, userId: userId, sessionId: sessionId, prompt: prompt, stream: stream)
        generations.insert(generation, id: id)
        let steps = max(1, settings.steps)
        let timer = clock.repeating(every: (settings.duration ?? .seconds(20)) / steps) { [weak self] in
            self?.step(generation, by: 100 / steps)
        }
        generation.state.withLock { $0.timer = timer }
        return generation
    }

    /// The generation, if `userId` owns it (another user's generation is not found).
    func generation(_ id: String, userId: Int?) -> Generation? {
        guard let generation = generations[id] else { return nil }
        if let userId, generation.userId != userId { return nil }
        return generation
    }

    /// Every generation, oldest first.
    var all: [Generation] {
        generations.all
    }

    private func step(_ generation: Generation, by percent: Int) {
        let finished = generation.state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            state.status = .processing
            state.progress = min(100, state.progress + percent)
            publishProgress(generation, state)
            guard state.progress >= 100 else { return false }
            complete(generation, &state)
            return true
        }
        if finished { end(generation) }
    }

    /// Completes at once, whatever the progress. False if it had finished.
    func complete(_ generation: Generation) -> Bool {
        let completed = generation.state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            if state.progress < 100 {
                state.status = .processing
                state.progress = 100
                publishProgress(generation, state)
            }
            complete(generation, &state)
            return true
        }
        if completed { end(generation) }
        return completed
    }

    /// Fails at once with `code` and `message`. False if it had finished.
    func fail(_ generation: Generation, code: String, message: String) -> Bool {
        let failed = generation.state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            state.status = .failed
            state.failure = (code, message)
            state.completedAt = Timestamp.iso8601(Date())
            generation.stream.publish(
                GenerationFailedEvent(
                    generationId: generation.id, code: code, message: message, progress: Double(state.progress)))
            return true
        }
        if failed { end(generation) }
        return failed
    }

    /// A session has ended: its connections to the user's generation streams get
    /// `event: error` (`GenerationSessionEndedEvent`) and end, as its user-info streams get
    /// their last frame; one that opens in the same instant gets the same (the stream's
    /// audience of that session, `EventStream.endAudience`). The generations go on.
    func sessionEnded(_ session: PlayerSession, cause: StreamEndCause) {
        let ended = StreamEvent(GenerationSessionEndedEvent())
        for generation in generations.all where generation.userId == session.userId && !generation.stream.isFinished {
            generation.stream.endAudience(session.sessionId, with: ended, cause: cause)
        }
    }

    /// Every generation stops and is forgotten.
    func removeAll() {
        for generation in generations.removeAll() {
            if let timer = generation.state.withLock({ $0.timer }) { clock.cancel(timer) }
        }
    }

    private func complete(_ generation: Generation, _ state: inout Generation.State) {
        state.status = .completed
        state.completedAt = Timestamp.iso8601(Date())
        generation.stream.publish(GenerationCompletedEvent(generationId: generation.id, message: "Done"))
    }

    private func end(_ generation: Generation) {
        if let timer = generation.state.withLock({ $0.timer }) { clock.cancel(timer) }
        generation.stream.finish()
        generations.finished(generation.id)
    }

    private func publishProgress(_ generation: Generation, _ state: Generation.State) {
        let message = state.progress < 50 ? "Composing" : (state.progress < 100 ? "Rendering" : "Finishing")
        generation.stream.publish(
            GenerationProgressEvent(
                generationId: generation.id, status: state.status, progress: Double(state.progress),
                message: message))
    }
}
