import Dispatch
import MockBackendSupport

/// A writer that belongs to one connection: a stream's `ResponseBodyWriter` or a
/// `WebSocketWriter`, which `LoopMembers` groups by the connection's event loop.
protocol ConnectionBoundWriter: AnyObject, Sendable {
    var connectionID: UInt64 { get }
    /// The connection, while it lives.
    var connection: HTTPConnection? { get }
}

extension ResponseBodyWriter: ConnectionBoundWriter {}
extension WebSocketWriter: ConnectionBoundWriter {}

/// Writers grouped by the event loop their connections run on: the bookkeeping that
/// `BroadcastGroup` and `WebSocketBroadcastGroup` share, so that a send to all of them
/// costs one queued block per loop.
///
/// A value type, kept under its owner's lock. A member keeps its connection object alive
/// until it is removed.
struct LoopMembers<Writer: ConnectionBoundWriter>: Sendable {
    struct Member: @unchecked Sendable {
        let writer: Writer
        /// Strong, unlike the writer's weak reference: a send skips the weak load per
        /// member. Off the loop only its constants (`queue`, `context`) are read.
        let connection: HTTPConnection
    }

    /// The members of one loop, in an array a send hands to the loop as it is (copy on
    /// write), with each connection's index for removal in constant time.
    struct Loop: @unchecked Sendable {
        let queue: DispatchQueue
        var members: [Member] = []
        var indices: [UInt64: Int] = [:]
    }

    private(set) var loops: [Loop] = []

    /// The smallest unsent-bytes bound (`HTTPServerConfiguration.maxUnsentStreamBytes`) of
    /// the connections ever added; nil before the first.
    private(set) var unsentLimit: Int?

    var count: Int { loops.reduce(0) { $0 + $1.members.count } }

    /// Adds `writer`; one whose connection is already gone is not added.
    mutating func insert(_ writer: Writer) {
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
    mutating func remove(_ writer: Writer) {
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

    /// Runs `body` on `queue` once every member (but those in `excluded`, by connection id)
    /// has at most `threshold` bytes queued that its socket has not taken, or has closed;
    /// counting everything sent to the group so far. A member whose socket took nothing at
    /// all for `patience` (a reader that stopped reading) is no longer waited for: `body`
    /// then gets its connection id among the laggards.
    func whenDrained(
        toAtMost threshold: Int, excluding excluded: Set<UInt64>, patience: Duration, on queue: DispatchQueue,
        _ body: @escaping @Sendable (_ laggards: Set<UInt64>) -> Void
    ) {
        let loops = loops.map { loop in
            (loop.queue, loop.members.filter { !excluded.contains($0.writer.connectionID) })
        }
        let waiting = Set(loops.flatMap { $0.1.map(\.writer.connectionID) })
        let barrier = DrainBarrier(waiting: waiting, patience: patience, queue: queue, body: body)
        guard !waiting.isEmpty else {
            barrier.finish()
            return
        }
        barrier.scheduleCheck()
        for (loopQueue, members) in loops where !members.isEmpty {
            // Queued after every earlier send on this loop, so it sees their bytes.
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
}
