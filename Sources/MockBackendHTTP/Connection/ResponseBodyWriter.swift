import Dispatch
import MockBackendSupport

/// Why a streamed response ended, as the connection knows it. Its words (`description`)
/// are the stream journal's `endReason` words for the same ends, so the request log, the
/// journal and the admin feed speak one vocabulary; a producer that ends its stream for a
/// reason of its own names it (`StreamSink.nameEnd`), and the log line says that.
public enum StreamEndReason: Sendable, Equatable, CustomStringConvertible {
    /// The producer called `finish()`: `finished`.
    case finished
    /// The client closed the connection or it broke: `client_closed`.
    case clientClosed
    /// The client read so slowly that the unsent bytes passed the bound: `slow_reader`.
    case slowReader
    /// The server is stopping: `server_stopping`.
    case serverStopping
    /// The response's shaper ended the connection (a fault): `fault`.
    case cut
    /// The connection timed out or was closed for another reason: `connection_closed`.
    case connectionClosed
    /// The producer dropped the connection on purpose (`abort`), without ending the body:
    /// `aborted`, unless the producer named why.
    case aborted

    public var description: String {
        switch self {
        case .finished: "finished"
        case .clientClosed: "client_closed"
        case .slowReader: "slow_reader"
        case .serverStopping: "server_stopping"
        case .cut: "fault"
        case .connectionClosed: "connection_closed"
        case .aborted: "aborted"
        }
    }
}

/// Writes the body of a streamed response: the HTTP/1.1 sink of a stream. Safe to use from
/// any thread.
///
/// Writes are queued in call order on the connection's event loop. Once the stream has ended
/// (finished, client gone, slow reader, server stopping) every write is a no-op and
/// `onClose` handlers have run, each exactly once.
///
/// Invariant: `connection` is read and cleared only on the connection's loop (`queue`),
/// where every write runs; it is cleared when the stream ends, so a writer kept by its
/// producer does not keep a closed connection alive. Everything else is constant or under
/// `ending`'s lock. That is what makes the `@unchecked Sendable` sound.
public final class ResponseBodyWriter: StreamSink, @unchecked Sendable {
    /// Strong while the stream lives (see above): a write skips a weak load per connection.
    private var connection: HTTPConnection?
    private let queue: DispatchQueue
    private let ending = SinkEnding()

    /// The connection the body goes out on (`HTTPRequest.connectionID`).
    public let connectionID: UInt64
    public let maxUnsentBytes: Int
    public let deliveries = DeliveryTally()
    public var framing: StreamFraming { .eventStream }
    public var executor: any StreamExecutor { queue }

    init(connection: HTTPConnection) {
        self.connection = connection
        queue = connection.queue
        connectionID = connection.id
        maxUnsentBytes = connection.context.configuration.maxUnsentStreamBytes
    }

    /// Queues `bytes` as the next part of the body.
    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, !isClosed else { return }
        queue.async { self.connection?.streamWrite(bytes, from: self) }
    }

    /// Queues UTF-8 text as the next part of the body.
    public func write(_ text: String) {
        write(Array(text.utf8))
    }

    public func writeOnExecutor(_ payload: StreamPayload) {
        guard let body = payload.body, let connection else { return }
        connection.streamWrite(body, events: payload.events, from: self)
    }

    /// Ends the body cleanly after everything written so far.
    public func finish() {
        guard !isClosed else { return }
        queue.async { self.connection?.finishStream(from: self) }
    }

    /// Ends the body cleanly: an event stream ends the same way however it is over.
    public func finish(_ ending: StreamFinish) {
        finish()
    }

    /// Drops the connection now, without the end of the body: the client sees the stream
    /// break (FIN, or RST with `reset`), as when a proxy or the network cuts it.
    public func abort(reset: Bool = false) {
        guard !isClosed else { return }
        queue.async { self.connection?.abortStream(from: self, reset: reset) }
    }

    public func whenDrainedOnExecutor(
        toAtMost threshold: Int, progress: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () -> Void
    ) {
        guard let connection else { return body() }
        connection.channel.whenDrained(toAtMost: threshold, progress: progress, body)
    }

    /// Runs `handler` once when the stream ends, or at once if it already has.
    public func onClose(_ handler: @escaping @Sendable (StreamEndReason) -> Void) {
        ending.onEnd(handler)
    }

    public func onEnd(_ handler: @escaping @Sendable (StreamEndReason) -> Void) {
        ending.onEnd(handler)
    }

    public func nameEnd(_ word: String) {
        ending.name(word)
    }

    /// The word the producer gave for the end (`nameEnd`), if it gave one.
    public var namedEnd: String? { ending.namedEnd }

    /// Whether the stream has ended.
    public var isClosed: Bool { ending.reason != nil }

    /// Why the stream ended, once it has.
    public var endReason: StreamEndReason? { ending.reason }

    /// Records the end and runs the handlers; later calls do nothing. On the loop.
    func markEnded(_ reason: StreamEndReason) {
        connection = nil
        ending.end(reason)
    }
}
