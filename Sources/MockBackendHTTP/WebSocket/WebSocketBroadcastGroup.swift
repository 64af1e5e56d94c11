import Dispatch

/// WebSocket writers grouped by the event loop their connections run on, so that sending
/// one message to all of them costs one queued block per loop and one frame in all: the
/// WebSocket counterpart of `BroadcastGroup`, with the same rules.
///
/// A value type: its owner keeps it under its own lock, and `send` must be called under
/// that lock too when several threads send, so that every connection gets the messages in
/// the order they were sent. Messages sent here and through the writer's own `send` reach
/// the connection in call order: both are blocks on the same serial loop. A member keeps
/// its connection object alive until it is removed: remove each writer when its connection
/// ends (`WebSocketWriter.onClose`).
public struct WebSocketBroadcastGroup: Sendable {
    private struct Member: @unchecked Sendable {
        let writer: WebSocketWriter
        /// Strong, unlike the writer's weak reference. Off the loop only its constants
        /// (`queue`, `context`) are read.
        let connection: HTTPConnection
    }

    private struct Loop: @unchecked Sendable {
        let queue: DispatchQueue
        var members: [Member] = []
        var indices: [UInt64: Int] = [:]
    }

    private var loops: [Loop] = []

    public init() {}

    /// How many writers are in the group.
    public var count: Int { loops.reduce(0) { $0 + $1.members.count } }

    /// The smallest unsent-bytes bound (`HTTPServerConfiguration.maxUnsentStreamBytes`) of
    /// the connections ever added; nil before the first.
    public private(set) var unsentLimit: Int?

    /// Adds `writer`; a writer whose connection is already gone is not added.
    public mutating func insert(_ writer: WebSocketWriter) {
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
    public mutating func remove(_ writer: WebSocketWriter) {
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

    /// Queues `message` on every member, as `WebSocketWriter.send` would: through each
    /// connection's shaper as one `.message` write.
    public func send(_ message: PreparedWebSocketMessage) {
        let frame = message.frame
        for loop in loops where !loop.members.isEmpty {
            let members = loop.members
            loop.queue.async {
                for member in members { member.connection.webSocketSend(frame, from: member.writer) }
            }
        }
    }

    /// Starts the closing handshake on every member, after every message sent so far, as
    /// `WebSocketWriter.close` would. Members stay in the group until their `onClose`.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        let payload = WebSocketClosePayload(code: code, reason: reason)
        for loop in loops where !loop.members.isEmpty {
            let members = loop.members
            loop.queue.async {
                for member in members { member.connection.closeWebSocket(payload, from: member.writer) }
            }
        }
    }

    /// Runs `body` on `queue` once every member (but those in `excluding`) has at most
    /// `threshold` unsent bytes, or has closed; a member whose socket took nothing for
    /// `patience` is given up on and named among the laggards. As
    /// `BroadcastGroup.whenDrained`.
    public func whenDrained(
        toAtMost threshold: Int, excluding excluded: Set<UInt64> = [], patience: Duration,
        on queue: DispatchQueue, _ body: @escaping @Sendable (_ laggards: Set<UInt64>) -> Void
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
