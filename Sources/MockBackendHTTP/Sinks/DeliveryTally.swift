import MockBackendSupport

/// The events of one sink that have left for the client, counted as each event's last byte
/// is written to the transport (after any shaping: a stalled, muted or blackholed event is
/// not counted), and those a shaper dropped on the way: what the client could have read.
///
/// Positions count the events in the order they were written to the sink, delivered or
/// dropped; events are delivered in that order, so the delivered ones are the positions
/// not dropped, oldest first. Noted on the sink's executor, read from any thread.
public final class DeliveryTally: Sendable {
    /// What has happened to the events written so far.
    public struct Snapshot: Sendable, Equatable {
        /// Events that left for the client.
        public var delivered = 0
        /// Positions of events dropped on the way, merged into ranges; only those that
        /// begin before `DeliveryTally.trackedPositions` are kept (the count goes on).
        public var dropped: [Range<Int>] = []
        /// Events delivered or dropped so far: the next event's position.
        public var position = 0
    }

    /// Dropped positions are kept in detail only below this one: journals keep the ids of
    /// the first events of a connection only.
    public static let trackedPositions = 1024

    private let state = LockedValue(Snapshot())

    public init() {}

    /// What has happened so far.
    public var snapshot: Snapshot { state.current }

    /// How many events have left for the client.
    public var delivered: Int { state.withLock { $0.delivered } }

    /// Notes `count` more events that have left for the client.
    package func noteDelivered(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.noteDelivered(count) }
    }

    /// Notes `count` more events dropped on the way (a `mute` fault).
    package func noteDropped(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.noteDropped(count) }
    }

    /// Runs `write` — one write to the transport, which may complete events — with the
    /// tally held, so that what it notes is seen together with the write: a reader of the
    /// tally (a journal read once the client has an event) never finds fewer events than
    /// the client may already have read.
    package func whileWriting<Result>(_ write: (inout Snapshot) throws -> Result) rethrows -> Result {
        try state.withLock { try write(&$0) }
    }
}

extension DeliveryTally.Snapshot {
    /// Notes `count` more events that have left for the client.
    package mutating func noteDelivered(_ count: Int) {
        delivered += count
        position += count
    }

    /// Notes `count` more events dropped on the way; positions are kept in detail below
    /// `DeliveryTally.trackedPositions` only.
    package mutating func noteDropped(_ count: Int) {
        guard count > 0 else { return }
        let start = position
        position += count
        guard start < DeliveryTally.trackedPositions else { return }
        if let last = dropped.last, last.upperBound == start {
            dropped[dropped.count - 1] = last.lowerBound..<position
        } else {
            dropped.append(start..<position)
        }
    }

    /// The elements of `written` (what was written to the sink, in order) that have been
    /// delivered: those at positions not dropped, up to the delivered count.
    public func delivered<Element>(of written: some Sequence<Element>) -> [Element] {
        var result: [Element] = []
        var droppedRanges = dropped[...]
        for (position, element) in written.enumerated() {
            guard result.count < delivered else { break }
            while let range = droppedRanges.first, range.upperBound <= position { droppedRanges.removeFirst() }
            if let range = droppedRanges.first, range.contains(position) { continue }
            result.append(element)
        }
        return result
    }
}
