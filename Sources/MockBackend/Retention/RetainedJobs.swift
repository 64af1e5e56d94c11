import MockBackendHTTP
import MockBackendSupport

/// Jobs by id — import jobs, generations, workflow sessions — in the order they were made:
/// every one still running, and the last `finishedLimit` finished ones. Past that, the one
/// that finished first is forgotten, its stream too, so a mock left running for days in a
/// CI farm does not grow. A forgotten job's routes answer 404 like any unknown id.
///
/// Invariant: under one lock, `jobs` holds every job made and not forgotten, each with the
/// number it was made as (for the list order), and `finished` the ids of the finished ones
/// among them, oldest finished first; it never holds more than `finishedLimit` of them.
final class RetainedJobs<Job: Sendable>: Sendable {
    private struct State {
        var jobs: [String: (number: Int, job: Job)] = [:]
        var made = 0
        var finished: [String] = []
        var finishedHead = 0
    }

    /// Finished jobs kept.
    let finishedLimit: Int
    private let state = LockedValue(State())
    private let streams: EventStreamRegistry
    /// The name of a job's stream, from its id.
    private let streamName: @Sendable (String) -> String

    init(finishedLimit: Int, streams: EventStreamRegistry, streamName: @escaping @Sendable (String) -> String) {
        self.finishedLimit = max(1, finishedLimit)
        self.streams = streams
        self.streamName = streamName
    }

    /// Adds `job` under `id`, unless the id is taken; returns whether it was added.
    @discardableResult
    func insert(_ job: Job, id: String) -> Bool {
        state.withLock { state in
            guard state.jobs[id] == nil else { return false }
            state.made += 1
            state.jobs[id] = (state.made, job)
            return true
        }
    }

    subscript(id: String) -> Job? { state.withLock { $0.jobs[id]?.job } }

    /// Every job kept, oldest first.
    var all: [Job] {
        state.withLock { $0.jobs.values.sorted { $0.number < $1.number }.map(\.job) }
    }

    /// Notes that job `id` finished, and forgets the finished jobs past the limit with their
    /// streams.
    func finished(_ id: String) {
        let forgotten = state.withLock { state -> [String] in
            guard state.jobs[id] != nil else { return [] }
            state.finished.append(id)
            var forgotten: [String] = []
            while state.finished.count - state.finishedHead > finishedLimit {
                let oldest = state.finished[state.finishedHead]
                state.finishedHead += 1
                state.jobs[oldest] = nil
                forgotten.append(oldest)
            }
            if state.finishedHead > 1024, state.finishedHead * 2 > state.finished.count {
                state.finished.removeFirst(state.finishedHead)
                state.finishedHead = 0
            }
            if !forgotten.isEmpty { state.jobs.shrinkIfSparse() }
            return forgotten
        }
        for id in forgotten { streams.remove(named: streamName(id)) }
    }

    /// Forgets every job; returns them.
    func removeAll() -> [Job] {
        state.withLock { state in
            defer { state = State() }
            return state.jobs.values.map(\.job)
        }
    }
}
