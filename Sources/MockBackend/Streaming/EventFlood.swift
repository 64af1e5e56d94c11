import Dispatch
import MockBackendHTTP
import MockBackendSupport
import ServerSentEvents

/// One event published many times, each copy with its own id (the admin API's `count`), at
/// the pace of the stream's subscribers.
///
/// The copies go out in batches: each batch is logged event by event (so it is replayed
/// like any event) and written to every subscriber as one part (on a WebSocket, one message
/// per copy, the batch's frames in one write), and the next batch waits
/// until every subscriber's connection has taken the previous ones down to a quarter of its
/// unsent-bytes bound. A flood therefore never pushes a reader that keeps reading past the
/// bound, and a fast reader gets large writes instead of one system call per event. A
/// subscriber that has not come down to that mark after `patience` is no longer waited for
/// in this flood: it is sent the rest like any broadcast, and a reader that has stalled is
/// disconnected at the bound as usual (and replayed what it missed when it reconnects).
/// Without subscribers the batches follow each other at once.
final class EventFlood: Sendable {
    /// Largest batch, in bytes of events; an eighth of the bound when that is smaller.
    static let batchBytes = 32 * 1024
    /// Where the batches are made, one at a time whatever the number of floods.
    static let queue = DispatchQueue(label: "mockbackend.flood")

    private struct Progress {
        var remaining: Int
        var last: LoggedEvent?
        /// Connections no longer waited for.
        var leftBehind: Set<UInt64> = []
    }

    private let stream: EventStream
    private let event: StreamEvent
    private let retry: Int?
    private let patience: Duration
    private let isCancelled: @Sendable () -> Bool
    private let completion: @Sendable (LoggedEvent?) -> Void
    /// Where the steps run and the patience is counted.
    private let scheduler: any StreamScheduler
    /// Changed only by the steps, which run one at a time on `scheduler`.
    private let progress: LockedValue<Progress>

    /// - Parameters:
    ///   - retry: sent with the first copy, as `EventStream.publish(_:retry:)` would.
    ///   - patience: how long a subscriber may take nothing before it is left behind.
    ///   - isCancelled: checked before each batch; true stops the flood (the request that
    ///     asked for it has gone).
    ///   - completion: runs once with the last event logged (nil if none was).
    ///   - scheduler: where the steps run, one at a time (a serial queue), and where the
    ///     patience is counted; the floods' own queue unless a test gives another.
    init(
        stream: EventStream, event: StreamEvent, count: Int, retry: Int?, patience: Duration,
        scheduler: any StreamScheduler = EventFlood.queue, isCancelled: @escaping @Sendable () -> Bool,
        completion: @escaping @Sendable (LoggedEvent?) -> Void
    ) {
        self.stream = stream
        self.event = event
        self.retry = retry
        self.patience = patience
        self.isCancelled = isCancelled
        self.completion = completion
        self.scheduler = scheduler
        progress = LockedValue(Progress(remaining: count))
    }

    func start() {
        scheduler.execute { [self] in step(laggards: []) }
    }

    private func step(laggards: Set<UInt64>) {
        let current = progress.withLock { progress in
            progress.leftBehind.formUnion(laggards)
            return progress
        }
        guard current.remaining > 0, !isCancelled() else {
            completion(current.last)
            return
        }
        let limit = stream.subscribersUnsentLimit ?? HTTPServerConfiguration().maxUnsentStreamBytes
        let isFirst = current.last == nil
        let (count, last) = stream.publishBatch(
            of: event, count: current.remaining, retry: isFirst ? retry : nil,
            byteLimit: max(1, min(Self.batchBytes, limit / 8)), thenWhenDrainedTo: limit / 4,
            excluding: current.leftBehind, patience: patience, on: scheduler
        ) { [self] laggards in step(laggards: laggards) }
        progress.withLock { progress in
            progress.remaining -= count
            if let last { progress.last = last }
        }
    }
}
