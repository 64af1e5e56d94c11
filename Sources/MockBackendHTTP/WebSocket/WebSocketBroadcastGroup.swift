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
    private var members = LoopMembers<WebSocketWriter>()

    public init() {}

    /// How many writers are in the group.
    public var count: Int { members.count }

    /// The smallest unsent-bytes bound (`HTTPServerConfiguration.maxUnsentStreamBytes`) of
    /// the connections ever added; nil before the first.
    public var unsentLimit: Int? { members.unsentLimit }

    /// Adds `writer`; a writer whose connection is already gone is not added.
    public mutating func insert(_ writer: WebSocketWriter) { members.insert(writer) }

    /// Removes `writer` if it is a member (matched by connection and identity).
    public mutating func remove(_ writer: WebSocketWriter) { members.remove(writer) }

    /// Queues `message` on every member, as `WebSocketWriter.send` would: through each
    /// connection's shaper as one `.message` write.
    public func send(_ message: PreparedWebSocketMessage) {
        let frame = message.frame
        for loop in members.loops where !loop.members.isEmpty {
            let members = loop.members
            loop.queue.async { Self.each(of: members) { $0.webSocketSend(frame, from: $1) } }
        }
    }

    /// Queues `messages` on every member in one block per loop, in order: on a connection
    /// without a shaper as one write of all their frames, through a shaper as one `.message`
    /// write each.
    public func send(_ messages: PreparedWebSocketMessages) {
        guard !messages.frames.isEmpty else { return }
        for loop in members.loops where !loop.members.isEmpty {
            let members = loop.members
            loop.queue.async { Self.each(of: members) { $0.webSocketSend(messages, from: $1) } }
        }
    }

    /// Runs `body` for each member's connection and writer, in a block on their loop. The
    /// array holds them all for the whole block, so each is used without a retain and
    /// release of its own (as `BroadcastGroup.write` does: a connection's count lives in a
    /// side table, as it is weakly referenced).
    private static func each(
        of members: [LoopMembers<WebSocketWriter>.Member], _ body: (HTTPConnection, WebSocketWriter) -> Void
    ) {
        members.withUnsafeBufferPointer { members in
            for index in members.indices {
                Unmanaged.passUnretained(members[index].connection)._withUnsafeGuaranteedRef { connection in
                    Unmanaged.passUnretained(members[index].writer)._withUnsafeGuaranteedRef { writer in
                        body(connection, writer)
                    }
                }
            }
        }
    }

    /// Starts the closing handshake on every member, after every message sent so far, as
    /// `WebSocketWriter.close` would. Members stay in the group until their `onClose`.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        let payload = WebSocketClosePayload(code: code, reason: reason)
        for loop in members.loops where !loop.members.isEmpty {
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
        members.whenDrained(toAtMost: threshold, excluding: excluded, patience: patience, on: queue, body)
    }
}
