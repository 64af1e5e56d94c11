import Foundation
import MockBackendSupport
import ServerSentEvents

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Follows a job to its end: by its event stream, and by polling its status when the
/// stream's reconnection gives up — with the same outcome either way.
///
/// ```swift
/// let tracker = JobTracker(importJobId: jobId, baseURL: baseURL)   // or generationId:token:
/// tracker.start()
/// for try await update in tracker.updates {
///     if let progress = update.progress { show(progress.fraction) }
/// }
/// let outcome = try await tracker.outcome   // .completed(summary) or .failed(reason)
/// ```
/// - The stream resumes with `Last-Event-ID` after a drop, so every event arrives once.
/// - When the stream ends without a final event — reconnection gave up (the event
///   source's polling fallback), a 204, a 401/403/404, a response that is not an event
///   stream — polling takes over, and says how it ends.
/// - `suspend()` when the app goes to the background closes the stream; `resume()` when it
///   returns reopens it, but after a pause longer than `statusCheckAfterPause` reads the
///   status first, and a job that finished meanwhile is reported without reconnecting.
///
/// `updates` ends after `.finished`, ends normally on `cancel()`, and throws a
/// `StatusPollingError` when tracking fails (401/403, 404, an unreadable status). The
/// tracker keeps running until then; call `cancel()` to let it go early.
public final class JobTracker<Kind: JobKind>: Sendable {
    struct Shared {
        var machine: JobTrackingStateMachine
        var lastEventID: String?
        var source: EventSource?
        /// The task of the current segment.
        var worker: Task<Void, Never>?
        /// A stream follower reading what arrived before a suspend.
        var draining: Task<Void, Never>?
        /// Since `suspend()`.
        var pausedFor: (@Sendable () -> Duration)?
        var outcome: JobOutcome<Kind.Summary>?
        var error: (any Error)?
        var waiters: [Waiter] = []
    }

    typealias Waiter = CheckedContinuation<JobOutcome<Kind.Summary>, any Error>

    public let streamURL: URL
    public let statusURL: URL
    public let configuration: JobTrackerConfiguration
    /// Events, statuses and the outcome, in order.
    public let updates: AsyncThrowingStream<JobUpdate<Kind>, any Error>
    let sink: AsyncThrowingStream<JobUpdate<Kind>, any Error>.Continuation
    let shared: LockedValue<Shared>
    let poller: StatusPoller<Kind.Status>
    let clock: any Clock<Duration>
    let random: @Sendable () -> Double

    /// - Parameters:
    ///   - clock: what backoff delays, poll intervals and pauses are measured on.
    ///   - random: the reconnection jitter source, returning values in 0..<1.
    public init(
        streamURL: URL, statusURL: URL, configuration: JobTrackerConfiguration,
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, session: URLSession = .shared
    ) {
        self.streamURL = streamURL
        self.statusURL = statusURL
        self.configuration = configuration
        self.clock = clock
        self.random = random
        (updates, sink) = AsyncThrowingStream.makeStream(of: JobUpdate<Kind>.self)
        poller = StatusPoller(
            url: statusURL, interval: configuration.pollInterval, headers: configuration.headers,
            maxConsecutiveFailures: configuration.maxConsecutivePollFailures, clock: clock, session: session)
        shared = LockedValue(
            Shared(
                machine: JobTrackingStateMachine(statusCheckAfterPause: configuration.statusCheckAfterPause),
                lastEventID: configuration.lastEventID))
    }

    /// What the tracker is doing now.
    public var phase: JobTrackerPhase { shared.withLock { $0.machine.phase } }

    /// The id of the last event read: keep it to resume this job's stream in a later run.
    public var lastEventID: String? { shared.withLock { $0.lastEventID } }

    /// The outcome, once the job has finished.
    /// - Throws: the error that ended tracking, or `CancellationError` after `cancel()`.
    public var outcome: JobOutcome<Kind.Summary> {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                shared.withLock { shared in
                    if let outcome = shared.outcome {
                        continuation.resume(returning: outcome)
                    } else if let error = shared.error {
                        continuation.resume(throwing: error)
                    } else if shared.machine.phase == .cancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        shared.waiters.append(continuation)
                    }
                }
            }
        }
    }

    /// Opens the stream; does nothing if already started.
    public func start() {
        apply(.start)
    }

    /// The app is going to the background: closes the stream (or stops polling) and starts
    /// timing the pause. Events already received are still reported.
    public func suspend() {
        let stopwatch = startStopwatch(on: self.clock)
        shared.withLock { shared in
            let action = shared.machine.handle(.suspend)
            if action == .halt { shared.pausedFor = stopwatch }
            return perform(action, &shared)
        }.run()
    }

    /// The app is back: after a pause longer than `statusCheckAfterPause` reads the status
    /// first and reports a job that finished meanwhile without reconnecting; otherwise, or
    /// when the job is still running, reopens the stream from the last event id.
    public func resume() {
        let (pause, draining) = shared.withLock { shared -> (Duration?, Task<Void, Never>?) in
            guard shared.machine.phase == .suspended, let pausedFor = shared.pausedFor else { return (nil, nil) }
            shared.pausedFor = nil
            return (pausedFor(), shared.draining)
        }
        guard let pause else { return }
        Task {
            // The next stream resumes after the last event the previous one delivered.
            await draining?.value
            apply(.resume(pause: pause))
        }
    }

    /// Stops tracking for good: `updates` ends, `outcome` throws `CancellationError`.
    public func cancel() {
        end(.cancelled)
    }

    /// Feeds the state machine and carries out its action.
    func apply(_ input: JobTrackingStateMachine.Input) {
        shared.withLock { perform($0.machine.handle(input), &$0) }.run()
    }

    /// Carries out an action under the lock; what must be stopped is returned, to be stopped
    /// after the lock is released. A source starts under the lock, so a halt can never take
    /// one that has not started yet.
    func perform(_ action: JobTrackingStateMachine.Action, _ shared: inout Shared) -> Cleanup {
        switch action {
        case .openStream(let segment):
            let source = makeSource(lastEventID: shared.lastEventID)
            shared.source = source
            shared.worker = Task { await follow(source, segment: segment) }
            source.start()
        case .checkStatus(let segment):
            shared.worker = Task { await checkStatus(segment: segment) }
        case .startPolling:
            shared.source = nil
            shared.worker = Task { await poll() }
        case .halt:
            // A stream's follower is left to read what already arrived; other work is cancelled.
            defer {
                shared.source = nil
                shared.worker = nil
            }
            guard let source = shared.source else { return Cleanup(task: shared.worker) }
            shared.draining = shared.worker
            return Cleanup(source: source)
        case .none:
            break
        }
        return Cleanup()
    }

    /// How tracking ends.
    enum Ending {
        case outcome(JobOutcome<Kind.Summary>)
        case failure(any Error)
        case cancelled
    }

    /// Ends tracking, once: reports the end, stops what runs, answers every `outcome` waiter.
    func end(_ ending: Ending) {
        let (cleanup, waiters) = shared.withLock { shared -> (Cleanup, [Waiter]) in
            guard !shared.machine.phase.isTerminal else { return (Cleanup(), []) }
            let input: JobTrackingStateMachine.Input
            switch ending {
            case .outcome(let outcome):
                shared.outcome = outcome
                sink.yield(.finished(outcome))
                sink.finish()
                input = .finished
            case .failure(let error):
                shared.error = error
                sink.finish(throwing: error)
                input = .failed
            case .cancelled:
                sink.finish()
                input = .cancel
            }
            defer { shared.waiters = [] }
            return (perform(shared.machine.handle(input), &shared), shared.waiters)
        }
        cleanup.run()
        for waiter in waiters {
            switch ending {
            case .outcome(let outcome): waiter.resume(returning: outcome)
            case .failure(let error): waiter.resume(throwing: error)
            case .cancelled: waiter.resume(throwing: CancellationError())
            }
        }
    }

    /// What a halt leaves to stop once the tracker's lock is released.
    struct Cleanup {
        var source: EventSource?
        var task: Task<Void, Never>?

        func run() {
            source?.stop()
            task?.cancel()
        }
    }
}

/// The time passed on `clock` since now, each time the result is called.
private func startStopwatch<C: Clock<Duration>>(on clock: C) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
}
