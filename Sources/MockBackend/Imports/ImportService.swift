import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport

/// CSV import jobs: parsed rows processed at a simulated rate, told by a stream
/// (`started`, `progress`, `complete` or `error`) and by polling, from one state.
package final class ImportService: Sendable {
    package let settings: ImportSettings
    private let streams: EventStreamRegistry
    private let clock: SimulationClock
    private let ids: IdentifierSource
    private let jobs: RetainedJobs<ImportJob>
    private let timers = LockedValue<[String: SimulationClock.Timer]>([:])

    package init(streams: EventStreamRegistry, clock: SimulationClock, ids: IdentifierSource, settings: ImportSettings)
    {
        self.streams = streams
        self.clock = clock
        self.ids = ids
        self.settings = settings
        jobs = RetainedJobs(finishedLimit: settings.finishedJobLimit, streams: streams) { "imports/\($0)" }
    }

    /// Starts a job for CSV records (header first). Rows whose column count differs from the
    /// header's, or whose first column is empty, will count as failed.
    func start(records: [[String]]) -> ImportJob {
        let header = records.first ?? []
        let rows = records.dropFirst().map { row in
            row.count == header.count && !(row.first ?? "").trimmingSpaces().isEmpty
        }
        let id = "import_" + ids.hex(length: 12)
        let stream = streams.stream(
            named: "imports/\(id)",
            settings: EventStreamSettings(
                heartbeat: true, retry: 5000, greeting: "connection established", messages: true))
        let job = ImportJob(id: id, rowIsValid: Array(rows), stream: stream)
        jobs.insert(job, id: id)
        clock.schedule(after: settings.queueDelay) { [weak self] in self?.begin(job) }
        return job
    }

    /// The job, accepting its id with or without the `import_` prefix.
    func job(_ id: String) -> ImportJob? {
        jobs[id] ?? jobs["import_" + id]
    }

    /// Every job, oldest first.
    var all: [ImportJob] {
        jobs.all
    }

    private func begin(_ job: ImportJob) {
        let started = job.state.withLock { state -> Bool in
            guard state.status == .queued else { return false }
            state.status = .processing
            job.stream.publish(ImportStartedEvent(jobId: job.id, totalRows: job.totalRows))
            return true
        }
        guard started else { return }
        if job.totalRows == 0 {
            finish(job)
            return
        }
        let rowsPerTick = (settings.rowsPerSecond ?? 50) * settings.tick.milliseconds / 1000
        let timer = clock.repeating(every: settings.tick) { [weak self] in self?.advance(job, by: rowsPerTick) }
        timers.withLock { $0[job.id] = timer }
    }

    /// Processes the rows the rate allows since the last step, and tells it.
    private func advance(_ job: ImportJob, by rows: Double) {
        let done = job.state.withLock { state -> Bool in
            guard state.status == .processing else { return state.status.isFinished }
            state.carry += rows
            let count = min(Int(state.carry), job.totalRows - state.processedRows)
            guard count > 0 else { return false }
            state.carry -= Double(count)
            process(count, of: job, in: &state)
            return state.processedRows == job.totalRows
        }
        if done { finish(job) }
    }

    /// Counts `count` more rows and publishes `progress`. Called under the job's lock.
    private func process(_ count: Int, of job: ImportJob, in state: inout ImportJob.State) {
        for index in state.processedRows..<(state.processedRows + count) {
            if job.rowIsValid[index] { state.successfulRows += 1 } else { state.failedRows += 1 }
        }
        state.processedRows += count
        job.stream.publish(
            ImportProgressEvent(
                jobId: job.id, progress: job.progress(of: state), processedRows: state.processedRows,
                totalRows: job.totalRows))
    }

    /// Marks the job complete, publishes `complete`, and ends its stream.
    private func finish(_ job: ImportJob) {
        stopTimer(of: job)
        let finished = job.state.withLock { state -> Bool in
            guard !state.status.isFinished else { return false }
            state.status = .complete
            job.stream.publish(
                ImportCompleteEvent(
                    jobId: job.id, totalRows: job.totalRows, successfulRows: state.successfulRows,
                    failedRows: state.failedRows))
            return true
        }
        if finished { end(job) }
    }

    /// Ends a finished job's stream; the oldest finished jobs past the bound are forgotten.
    private func end(_ job: ImportJob) {
        job.stream.finish()
        jobs.finished(job.id)
    }

    /// Fails the job now: `error` event, then the end of the stream. False if it had finished.
    func fail(_ job: ImportJob, code: String, message: String) -> Bool {
        stopTimer(of: job)
        let failed = job.state.withLock { state -> Bool in
            guard !state.status.isFinished else { return false }
            state.status = .error
            state.failure = (code, message)
            job.stream.publish(ImportErrorEvent(jobId: job.id, code: code, message: message))
            return true
        }
        if failed { end(job) }
        return failed
    }

    /// Holds or releases processing. False when the job is not in a state that allows it.
    func setPaused(_ job: ImportJob, _ paused: Bool) -> Bool {
        job.state.withLock { state in
            switch (state.status, paused) {
            case (.processing, true), (.queued, true):
                state.status = .paused
                return true
            case (.paused, false):
                state.status = .processing
                return true
            default:
                return false
            }
        }
    }

    /// Processes every remaining row at once and completes. False if it had finished.
    func complete(_ job: ImportJob) -> Bool {
        let completed = job.state.withLock { state -> Bool in
            guard !state.status.isFinished else { return false }
            if state.status == .queued {
                state.status = .processing
                job.stream.publish(ImportStartedEvent(jobId: job.id, totalRows: job.totalRows))
            }
            state.status = .processing
            let remaining = job.totalRows - state.processedRows
            if remaining > 0 { process(remaining, of: job, in: &state) }
            return true
        }
        if completed { finish(job) }
        return completed
    }

    /// Every job stops and is forgotten.
    func removeAll() {
        let stopped = timers.withLock { timers in
            defer { timers = [:] }
            return Array(timers.values)
        }
        for timer in stopped { clock.cancel(timer) }
        _ = jobs.removeAll()
    }

    private func stopTimer(of job: ImportJob) {
        if let timer = timers.withLock({ $0.removeValue(forKey: job.id) }) { clock.cancel(timer) }
    }
}
