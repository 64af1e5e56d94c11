import Dispatch
import MockBackendSupport

/// Stream sinks grouped by the executor they run on, so that sending one payload to all of
/// them costs one piece of work per executor (one queued block per event loop) instead of
/// one per sink, and one framing of each form in all (`StreamPayload`).
///
/// A value type: its owner keeps it under its own lock, and `send` must be called under
/// that lock too when several threads send, so that every sink gets the payloads in the
/// order they were sent. Each executor's work writes to its sinks one after the other with
/// `writeOnExecutor`; payloads sent here and through a sink's own `write` reach it in call
/// order, both being work on the same executor.
///
/// A member is held until it is removed: remove each sink when it ends (`onClose`).
public struct SinkGroup: Sendable {
    /// The members that run on one executor, in an array a send hands to the executor as it
    /// is (copy on write), with each one's index for removal in constant time.
    private struct Members: Sendable {
        let executor: any StreamExecutor
        var sinks: [any StreamSink] = []
        var indices: [UInt64: Int] = [:]
    }

    private var executors: [Members] = []
    private var counts: (eventStream: Int, webSocket: Int) = (0, 0)

    /// The smallest `maxUnsentBytes` of the sinks ever added; nil before the first.
    public private(set) var unsentLimit: Int?

    public init() {}

    /// How many sinks are in the group.
    public var count: Int { counts.eventStream + counts.webSocket }

    /// Whether some member writes `framing`: what forms a payload needs.
    public func takes(_ framing: StreamFraming) -> Bool {
        switch framing {
        case .eventStream: counts.eventStream > 0
        case .webSocket: counts.webSocket > 0
        }
    }

    /// Adds `sink`; one that has ended, or whose connection is in already, is not added.
    public mutating func insert(_ sink: any StreamSink) {
        guard !sink.isClosed else { return }
        let executor = sink.executor
        let index: Int
        if let existing = executors.firstIndex(where: { $0.executor === executor }) {
            index = existing
        } else {
            executors.append(Members(executor: executor))
            index = executors.count - 1
        }
        guard executors[index].indices[sink.connectionID] == nil else { return }
        unsentLimit = min(unsentLimit ?? sink.maxUnsentBytes, sink.maxUnsentBytes)
        executors[index].indices[sink.connectionID] = executors[index].sinks.count
        executors[index].sinks.append(sink)
        adjustCount(of: sink.framing, by: 1)
    }

    /// Removes `sink` if it is a member (matched by connection and identity).
    public mutating func remove(_ sink: any StreamSink) {
        for index in executors.indices {
            guard let position = executors[index].indices[sink.connectionID],
                executors[index].sinks[position] === sink
            else { continue }
            executors[index].indices[sink.connectionID] = nil
            let last = executors[index].sinks.removeLast()
            if position < executors[index].sinks.count {
                executors[index].sinks[position] = last
                executors[index].indices[last.connectionID] = position
            }
            executors[index].sinks.shrinkIfSparse()
            executors[index].indices.shrinkIfSparse()
            adjustCount(of: sink.framing, by: -1)
            return
        }
    }

    private mutating func adjustCount(of framing: StreamFraming, by change: Int) {
        switch framing {
        case .eventStream: counts.eventStream += change
        case .webSocket: counts.webSocket += change
        }
    }

    /// Queues `payload` on every member, as each one's `write` would.
    public func send(_ payload: StreamPayload) {
        for members in executors where !members.sinks.isEmpty {
            let sinks = members.sinks
            members.executor.execute {
                sinks.withUnsafeBufferPointer { sinks in
                    for sink in sinks { sink.writeOnExecutor(payload) }
                }
            }
        }
    }

    /// Ends every member, after every payload sent so far, as each one's `finish` would.
    /// Members stay in the group until their `onClose`.
    public func finish(_ ending: StreamFinish) {
        for members in executors where !members.sinks.isEmpty {
            let sinks = members.sinks
            members.executor.execute {
                for sink in sinks { sink.finish(ending) }
            }
        }
    }

    /// Runs `body` on `scheduler` once every member (but those in `excluding`, by connection id)
    /// has at most `threshold` bytes written that its transport has not taken, or has ended;
    /// counting everything sent to the group so far. A member whose transport took nothing
    /// at all for `patience` (a reader that stopped reading) is no longer waited for: `body`
    /// then gets its connection id among the laggards. One that is slow but reading is
    /// waited for as long as it keeps taking bytes. A producer that waits for this between
    /// sends goes at the pace of its readers instead of queuing without bound.
    public func whenDrained(
        toAtMost threshold: Int, excluding excluded: Set<UInt64> = [], patience: Duration,
        on scheduler: any StreamScheduler, _ body: @escaping @Sendable (_ laggards: Set<UInt64>) -> Void
    ) {
        let groups = executors.map { members in
            (members.executor, members.sinks.filter { !excluded.contains($0.connectionID) })
        }
        let waiting = Set(groups.flatMap { $0.1.map(\.connectionID) })
        let barrier = DrainBarrier(waiting: waiting, patience: patience, scheduler: scheduler, body: body)
        guard !waiting.isEmpty else {
            barrier.finish()
            return
        }
        barrier.scheduleCheck()
        for (executor, sinks) in groups where !sinks.isEmpty {
            // Queued after every earlier send on this executor, so it sees their bytes.
            executor.execute {
                for sink in sinks {
                    let connection = sink.connectionID
                    sink.whenDrainedOnExecutor(toAtMost: threshold) {
                        barrier.progressed(connection)
                    } _: {
                        barrier.arrive(connection)
                    }
                }
            }
        }
    }
}
