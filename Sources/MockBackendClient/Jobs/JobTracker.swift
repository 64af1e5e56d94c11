import Foundation
import MockBackendSupport
import ServerSentEvents

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Follows a job to its end: by its event stream — or its WebSocket — and by polling its
/// status when that fails, with the same outcome either way.
///
/// ```swift
/// let tracker = JobTracker(importJobId: jobId, baseURL: baseURL)   // or generationId:token:
/// // V1: let tracker = JobTracker(v1ImportJobId: jobId, baseURL: baseURL)
/// tracker.start()
/// for try await update in tracker.updates {
///     if let progress = update.progress { show(progress.fraction) }
/// }
/// let outcome = try await tracker.outcome   // .completed(summary) or .failed(reason)
/// ```
/// - The event stream resumes with `Last-Event-ID` after a drop, so every event arrives once.
/// - When the stream ends without a final event — reconnection gave up (the event
///   source's polling fallback), a 204, a 401/403/404, a response that is not an event
///   stream — polling takes over, and says how it ends.
/// - A WebSocket (`init(socketURL:…)`) is not reopened after a drop: a failure, an end
///   without a close frame, a close before the final message, or a silence longer than
///   `webSocketSilence` hands over to polling at once.
/// - `suspend()` when the app goes to the background closes the stream; `resume()` when it
///   returns reopens it, but after a pause longer than `statusCheckAfterPause` reads the
///   status first, and a job that finished meanwhile is reported without reconnecting.
///
/// `updates` ends after `.finished`, ends normally on `cancel()`, and throws a
/// `StatusPollingError` when tracking fails (401/403, 404, an unreadable status). The
/// tracker keeps running until then; call `cancel()` to let it go early — or cancel the
/// task that iterates `updates`, which cancels tracking too.
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
        /// Events reported from WebSockets: a socket opened again replays the job's whole
        /// history (V1 has no resume), and this many of its first events were seen already.
        var socketEvents = 0
        var outcome: JobOutcome<Kind.Summary>?
        var error: (any Error)?
        /// The tasks awaiting `outcome`, by the number each was given.
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
    }

    /// How the job's events arrive before polling.
    enum EventTransport: Sendable {
        /// An event stream, through `EventSource`.
        case eventStream
        /// A WebSocket whose text messages `decode` reads.
        case webSocket(any WebSocketTransport, decode: @Sendable (String) throws -> Kind.Event?)
    }

    typealias Waiter = CheckedContinuation<JobOutcome<Kind.Summary>, any Error>

    /// The job's event stream, or its WebSocket.
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
    let events: EventTransport

    /// Follows a job on its event stream.
    /// - Parameters:
    ///   - clock: what backoff delays, poll intervals and pauses are measured on.
    ///   - random: the source of the reconnection and polling jitter, returning values in 0..<1.
    public convenience init(
        streamURL: URL, statusURL: URL, configuration: JobTrackerConfiguration,
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, session: URLSession = .shared
    ) {
        self.init(
            streamURL: streamURL, statusURL: statusURL, events: .eventStream, configuration: configuration,
            clock: clock, random: random, session: session)
    }

    init(
        streamURL: URL, statusURL: URL, events: EventTransport, configuration: JobTrackerConfiguration,
        clock: any Clock<Duration>, random: @escaping @Sendable () -> Double, session: URLSession
    ) {
        self.streamURL = streamURL
        self.statusURL = statusURL
        self.events = events
        self.configuration = configuration
        self.clock = clock
        self.random = random
        (updates, sink) = AsyncThrowingStream.makeStream(of: JobUpdate<Kind>.self)
        poller = StatusPoller(
            url: statusURL, interval: configuration.pollInterval, jitter: configuration.pollJitter,
            headers: configuration.headers, maxConsecutiveFailures: configuration.maxConsecutivePollFailures,
            clock: clock, random: random, session: session)
        shared = LockedValue(
            Shared(
                machine: JobTrackingStateMachine(statusCheckAfterPause: configuration.statusCheckAfterPause),
                lastEventID: configuration.lastEventID))
        // The task iterating `updates` was cancelled, or it dropped them: so is tracking.
        sink.stopsOnConsumerDeparture(self) { $0.cancel() }
    }

    /// What the tracker is doing now.
    public var phase: JobTrackerPhase { shared.withLock { $0.machine.phase } }

    /// The id of the last event read: keep it to resume this job's stream in a later run.
    public var lastEventID: String? { shared.withLock { $0.lastEventID } }

    /// The outcome, once the job has finished.
    /// - Throws: the error that ended tracking, or `CancellationError` after `cancel()` or
    ///   when the awaiting task is cancelled (tracking goes on; only the wait ends).
    public var outcome: JobOutcome<Kind.Summary> {
        get async throws {
            let id = shared.withLock { shared in
                shared.nextWaiter += 1
                return shared.nextWaiter
            }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    shared.withLock { shared in
                        if let outcome = shared.outcome {
                            continuation.resume(returning: outcome)
                        } else if let error = shared.error {
                            continuation.resume(throwing: error)
                        } else if shared.machine.phase == .cancelled || Task.isCancelled {
                            continuation.resume(throwing: CancellationError())
                        } else {
                            shared.waiters[id] = continuation
                        }
                    }
                }
            } onCancel: {
                shared.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
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
            switch events {
            case .eventStream:
                let source = makeSource(lastEventID: shared.lastEventID)
                shared.source = source
                shared.worker = Task { await follow(source, segment: segment) }
                source.start()
            case .webSocket(let transport, let decode):
                // Cancelling the worker closes its socket.
                let seen = shared.socketEvents
                shared.worker = Task {
                    await followSocket(transport, decode: decode, segment: segment, replayed: seen)
                }
            }
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
}
