/// Which form of a `StreamPayload` a sink writes.
public enum StreamFraming: Sendable, Equatable {
    /// Event-stream bytes: the body of an HTTP response.
    case eventStream
    /// WebSocket messages, one per event.
    case webSocket

    /// `"sse"` or `"websocket"`, as journals and feeds name the protocol.
    public var protocolName: String {
        switch self {
        case .eventStream: "sse"
        case .webSocket: "websocket"
        }
    }
}

/// How a sink ends when its stream is over.
public enum StreamFinish: Sendable, Equatable {
    /// The stream is complete: the end of the body, or the closing handshake with 1000.
    case complete
    /// The server goes away (an admin's graceful disconnect): the end of the body, or the
    /// closing handshake with 1001 (RFC 6455 §7.4.1).
    case goingAway
}

/// What a stream needs of one subscriber: where its bytes or messages go. The HTTP/1.1
/// response body (`ResponseBodyWriter`) and the WebSocket (`WebSocketWriter`) are sinks; so
/// is a test's recording sink, with which a stream is tested without sockets.
///
/// Contract:
/// - Work given to a sink runs on its `executor`, in the order given: a `write` from any
///   thread and a `writeOnExecutor` inside the executor's own work stay in call order.
/// - Once the sink has ended (`onEnd` handlers have run, each exactly once), writes,
///   finishes and aborts do nothing.
/// - `whenDrainedOnExecutor`'s body runs on the executor once the bytes written that the
///   transport has not taken are at most the threshold, or once the sink has ended; never
///   inside the call itself unless it is already so.
/// - `deliveries` counts the events whose last byte has left for the client (after any
///   shaping), not those queued: what the client could have read.
public protocol StreamSink: AnyObject, Sendable {
    /// The connection it writes to; unique among the sinks of one stream.
    var connectionID: UInt64 { get }
    /// Which form of a payload it writes.
    var framing: StreamFraming { get }
    /// Where its work runs.
    var executor: any StreamExecutor { get }
    /// The most bytes it holds unsent before it drops a reader that fell behind.
    var maxUnsentBytes: Int { get }
    /// The events that have left for the client.
    var deliveries: DeliveryTally { get }
    /// Whether it has ended.
    var isClosed: Bool { get }

    /// Queues `payload`'s form for this sink, from any thread.
    func write(_ payload: StreamPayload)
    /// Writes `payload`'s form for this sink; called on `executor`.
    func writeOnExecutor(_ payload: StreamPayload)
    /// Ends cleanly after everything written so far.
    func finish(_ ending: StreamFinish)
    /// Drops the connection now, without a clean end: FIN, or RST with `reset`.
    func abort(reset: Bool)
    /// Runs `body` on `executor` once at most `threshold` written bytes are unsent, or once
    /// the sink has ended; until then `progress` runs each time the transport took some.
    /// Called on `executor`.
    func whenDrainedOnExecutor(
        toAtMost threshold: Int, progress: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () -> Void)
    /// Runs `handler` once when the sink has ended, with why, or at once if it has.
    func onEnd(_ handler: @escaping @Sendable (StreamEndReason) -> Void)
    /// Names why the producer is about to end the sink, in the words of the stream
    /// journal's `endReason` (`admin`, `session_expired`, …): the log line of its request
    /// then says that rather than the transport's reason. The last name given counts.
    func nameEnd(_ word: String)
}

extension StreamSink {
    public func write(_ payload: StreamPayload) {
        executor.execute { self.writeOnExecutor(payload) }
    }

    /// Runs `body` on `executor` once at most `threshold` written bytes are unsent, or once
    /// the sink has ended: how a producer writes a long backlog at its reader's pace.
    /// Never runs `body` on the caller's thread, so the caller may hold a lock `body` takes.
    public func whenDrained(toAtMost threshold: Int, _ body: @escaping @Sendable () -> Void) {
        executor.execute { self.whenDrainedOnExecutor(toAtMost: threshold, progress: {}, body) }
    }
}

extension StreamSink {
    /// Queues `bytes` as the next part of an event-stream body (nothing on a WebSocket).
    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        write(StreamPayload(body: PreparedBodyPart(unframed: bytes)))
    }

    /// Queues UTF-8 text as the next part of an event-stream body.
    public func write(_ text: String) {
        write(Array(text.utf8))
    }

    /// Ends cleanly after everything written so far (`StreamFinish.complete`).
    public func finish() {
        finish(.complete)
    }
}
