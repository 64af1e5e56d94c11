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
    private var members = LoopMembers<ResponseBodyWriter>()

    public init() {}

    /// How many writers are in the group.
    public var count: Int { members.count }

    /// Adds `writer`; a writer whose connection is already gone is not added.
    public mutating func insert(_ writer: ResponseBodyWriter) { members.insert(writer) }

    /// Removes `writer` if it is a member (matched by connection and identity).
    public mutating func remove(_ writer: ResponseBodyWriter) { members.remove(writer) }

    /// The smallest unsent-bytes bound (`HTTPServerConfiguration.maxUnsentStreamBytes`) of
    /// the connections ever added; nil before the first.
    public var unsentLimit: Int? { members.unsentLimit }

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
        members.whenDrained(toAtMost: threshold, excluding: excluded, patience: patience, on: queue, body)
    }

    /// Queues `part` on every member's stream, as `ResponseBodyWriter.write` would.
    public func write(_ part: PreparedBodyPart) {
        for loop in members.loops where !loop.members.isEmpty {
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
