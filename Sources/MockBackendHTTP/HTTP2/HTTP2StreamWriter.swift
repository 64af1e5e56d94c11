import Dispatch

/// The sink of one HTTP/2 stream's streamed response: what `ResponseBodyWriter` is for an
/// HTTP/1.1 response, with DATA frames for chunks. Safe to use from any thread.
///
/// Invariant: `connection` is read and cleared only on the connection's loop (`queue`),
/// where every write runs; it is cleared when the stream ends, so a writer kept by its
/// producer does not keep a closed connection alive. Everything else is constant or under
/// `ending`'s lock. That is what makes the `@unchecked Sendable` sound.
final class HTTP2StreamWriter: StreamSink, @unchecked Sendable {
    private var connection: HTTP2Connection?
    private let queue: DispatchQueue
    private let ending = SinkEnding()
    let streamID: Int32

    let connectionID: UInt64
    let maxUnsentBytes: Int
    let deliveries = DeliveryTally()
    var framing: StreamFraming { .eventStream }
    var executor: any StreamExecutor { queue }

    init(connection: HTTP2Connection, streamID: Int32, exchangeID: UInt64) {
        self.connection = connection
        self.streamID = streamID
        queue = connection.queue
        connectionID = exchangeID
        maxUnsentBytes = connection.context.configuration.maxUnsentStreamBytes
    }

    func writeOnExecutor(_ payload: StreamPayload) {
        guard let body = payload.body else { return }
        connection?.streamWrite(body.raw, events: payload.events, stream: streamID, from: self)
    }

    func finish(_ ending: StreamFinish) {
        guard !isClosed else { return }
        queue.async { self.connection?.finishStream(streamID: self.streamID, from: self) }
    }

    /// Ends the stream without its END_STREAM: RST_STREAM `CANCEL`, or `INTERNAL_ERROR`
    /// with `reset` — what a dropped HTTP/1.1 connection is on one stream of many.
    func abort(reset: Bool) {
        guard !isClosed else { return }
        queue.async { self.connection?.abortStream(streamID: self.streamID, reset: reset, from: self) }
    }

    func whenDrainedOnExecutor(
        toAtMost threshold: Int, progress: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () -> Void
    ) {
        guard let connection else { return body() }
        connection.whenDrained(streamID: streamID, toAtMost: threshold, progress: progress, body)
    }

    func onEnd(_ handler: @escaping @Sendable (StreamEndReason) -> Void) {
        ending.onEnd(handler)
    }

    func nameEnd(_ word: String) {
        ending.name(word)
    }

    var namedEnd: String? { ending.namedEnd }

    var isClosed: Bool { ending.reason != nil }

    /// Records the end and runs the handlers; later calls do nothing. On the loop.
    func markEnded(_ reason: StreamEndReason) {
        connection = nil
        ending.end(reason)
    }
}
