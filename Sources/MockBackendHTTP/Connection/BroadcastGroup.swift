import Dispatch
import MockBackendSupport

/// Stream writers grouped by the event loop their connections run on, so that sending one
/// part to all of them costs one queued block per loop instead of one per writer.
///
/// A value type: its owner keeps it under its own lock, and `write` must be called under
/// that lock too when several threads write, so that every writer gets the parts in the
/// order they were sent. Each loop's block writes to that loop's connections one after the
/// other; a connection's state is confined to its loop (see `HTTPConnection`), so the block
/// may touch it directly. Parts sent here and through the writer's own `write` reach the
/// connection in call order: both are blocks on the same serial loop.
///
/// A member keeps its connection object alive until it is removed: remove each writer when
/// its stream ends (`ResponseBodyWriter.onClose`).
public struct BroadcastGroup: Sendable {
    private struct Member: @unchecked Sendable {
        let writer: ResponseBodyWriter
        /// Strong, unlike the writer's weak reference: a broadcast skips the weak load per
        /// member. Off the loop only its constants (`queue`, `context`) are read.
        let connection: HTTPConnection
    }

    /// The members of one loop, in an array that a broadcast hands to the loop as it is
    /// (copy on write), with each connection's index for removal in constant time.
    private struct Loop: @unchecked Sendable {
        let queue: DispatchQueue
        var members: [Member] = []
        var indices: [UInt64: Int] = [:]
    }

    private var loops: [Loop] = []

    public init() {}

    /// How many writers are in the group.
    public var count: Int { loops.reduce(0) { $0 + $1.members.count } }

    /// Adds `writer`; a writer whose connection is already gone is not added.
    public mutating func insert(_ writer: ResponseBodyWriter) {
        guard let connection = writer.connection else { return }
        let index: Int
        if let existing = loops.firstIndex(where: { $0.queue === connection.queue }) {
            index = existing
        } else {
            loops.append(Loop(queue: connection.queue))
            index = loops.count - 1
        }
        guard loops[index].indices[writer.connectionID] == nil else { return }
        let limit = connection.context.configuration.maxUnsentStreamBytes
        unsentLimit = min(unsentLimit ?? limit, limit)
        loops[index].indices[writer.connectionID] = loops[index].members.count
        loops[index].members.append(Member(writer: writer, connection: connection))
    }

    /// Removes `writer` if it is a member (matched by connection and identity).
    public mutating func remove(_ writer: ResponseBodyWriter) {
        for index in loops.indices {
            guard let position = loops[index].indices[writer.connectionID],
                loops[index].members[position].writer === writer
            else { continue }
            loops[index].indices[writer.connectionID] = nil
            let last = loops[index].members.removeLast()
            if position < loops[index].members.count {
                loops[index].members[position] = last
                loops[index].indices[last.writer.connectionID] = position
            }
            loops[index].members.shrinkIfSparse()
            loops[index].indices.shrinkIfSparse()
            return
        }
    }

    /// The smallest unsent-bytes bound (`HTTPServerConfiguration.maxUnsentStreamBytes`) of
    /// the connections ever added; nil before the first.
    public private(set) var unsentLimit: Int?

    /// Runs `body` on `queue` once every member (but those in `excluding`, by connection id)
    /// has at most `threshold` bytes queued that its socket has not taken, or has closed;
    /// counting everything written to the group so far. A member whose socket took nothing
    /// at all for `patience` (a reader that stopped reading) is no longer waited for:
    /// `body` then gets its connection id among the laggards. One that is slow but reading
    /// is waited for as long as it keeps taking bytes. A producer that waits for this
    /// between writes goes at the pace of its readers instead of queuing without bound.
    public func whenDrained(
        toAtMost threshold: Int, excluding excluded: Set<UInt64> = [], patience: Duration,
        on queue: DispatchQueue, _ body: @escaping @Sendable (_ laggards: Set<UInt64>) -> Void
    ) {
        let loops = loops.map { loop in (loop.queue, loop.members.filter { !excluded.contains($0.writer.connectionID) })
        }
        let waiting = Set(loops.flatMap { $0.1.map(\.writer.connectionID) })
        let barrier = DrainBarrier(waiting: waiting, patience: patience, queue: queue, body: body)
        guard !waiting.isEmpty else {
            barrier.finish()
            return
        }
        barrier.scheduleCheck()
        for (loopQueue, members) in loops where !members.isEmpty {
            // Queued after every earlier broadcast block on this loop, so it sees their bytes.
            loopQueue.async {
                for member in members {
                    let connection = member.writer.connectionID
                    member.connection.whenDrained(toAtMost: threshold) {
                        barrier.progressed(connection)
                    } _: {
                        barrier.arrive(connection)
                    }
                }
            }
        }
    }

    /// Queues `part` on every member's stream, as `ResponseBodyWriter.write` would.
    public func write(_ part: PreparedBodyPart) {
        for loop in loops where !loop.members.isEmpty {
            let members = loop.members
            loop.queue.async {
                // The array holds every member's writer and connection for the whole block, so
                // each can be used without a retain and release of its own (a connection's
                // count lives in a side table, as it is weakly referenced: about 170
                // instructions a pair, a fifth of a delivery).
                members.withUnsafeBufferPointer { members in
                    for index in members.indices {
                        Unmanaged.passUnretained(members[index].connection)._withUnsafeGuaranteedRef { connection in
                            connection.streamWrite(part, from: members[index].writer)
                        }
                    }
                }
            }
        }
    }
}

/// Counts the members of a `whenDrained` call down; runs its body once, when the last one
/// still waited for has arrived. Every `patience` it gives up on those that made no progress.
/// Shared with `WebSocketBroadcastGroup`.
final class DrainBarrier: Sendable {
    private struct State {
        var waiting: Set<UInt64>
        /// Members whose socket took bytes since the last check.
        var progressed: Set<UInt64> = []
        var laggards: Set<UInt64> = []
        var finished = false
    }

    private let state: LockedValue<State>
    private let patience: Duration
    private let queue: DispatchQueue
    private let body: @Sendable (Set<UInt64>) -> Void

    init(
        waiting: Set<UInt64>, patience: Duration, queue: DispatchQueue, body: @escaping @Sendable (Set<UInt64>) -> Void
    ) {
        state = LockedValue(State(waiting: waiting))
        self.patience = patience
        self.queue = queue
        self.body = body
    }

    func arrive(_ connection: UInt64) {
        let done = state.withLock { state -> Bool in
            guard !state.finished, state.waiting.remove(connection) != nil else { return false }
            return state.waiting.isEmpty
        }
        if done { finish() }
    }

    func progressed(_ connection: UInt64) {
        state.withLock { state in
            if state.waiting.contains(connection) { state.progressed.insert(connection) }
        }
    }

    /// In `patience`: members that took nothing meanwhile become laggards.
    func scheduleCheck() {
        queue.asyncAfter(deadline: .now() + DispatchDuration.interval(patience)) { [self] in
            let done = state.withLock { state -> Bool? in
                guard !state.finished else { return nil }
                let stalled = state.waiting.subtracting(state.progressed)
                state.laggards.formUnion(stalled)
                state.waiting.subtract(stalled)
                state.progressed = []
                return state.waiting.isEmpty
            }
            switch done {
            case true?: finish()
            case false?: scheduleCheck()
            case nil: break
            }
        }
    }

    /// Runs the body with the laggards, unless it has run.
    func finish() {
        let laggards = state.withLock { state -> Set<UInt64>? in
            guard !state.finished else { return nil }
            state.finished = true
            return state.laggards
        }
        if let laggards { queue.async { [body] in body(laggards) } }
    }
}
