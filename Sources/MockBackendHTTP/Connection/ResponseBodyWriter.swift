import Dispatch
import MockBackendSupport

/// Why a streamed response ended.
public enum StreamEndReason: Sendable, Equatable, CustomStringConvertible {
    /// The producer called `finish()`.
    case finished
    /// The client closed the connection or it broke.
    case clientClosed
    /// The client read so slowly that the unsent bytes passed the bound.
    case slowReader
    /// The server is stopping.
    case serverStopping
    /// The response's shaper ended the connection (a fault).
    case cut
    /// The connection timed out or was closed for another reason.
    case connectionClosed
    /// The server dropped the connection on purpose (`abort`), without ending the body.
    case aborted

    public var description: String {
        switch self {
        case .finished: "finished"
        case .clientClosed: "client_closed"
        case .slowReader: "slow_reader"
        case .serverStopping: "server_stopping"
        case .cut: "cut"
        case .connectionClosed: "connection_closed"
        case .aborted: "aborted"
        }
    }
}

/// Writes the body of a streamed response. Safe to use from any thread.
///
/// Writes are queued in call order on the connection's event loop. Once the stream has ended
/// (finished, client gone, slow reader, server stopping) every write is a no-op and
/// `onClose` handlers have run, each exactly once.
public final class ResponseBodyWriter: @unchecked Sendable {
    private struct State {
        var endReason: StreamEndReason?
        var handlers: [@Sendable (StreamEndReason) -> Void] = []
    }

    /// Set once in `init` and never written again, so reading it from any thread is safe.
    private(set) weak var connection: HTTPConnection?
    private let state = LockedValue(State())

    /// The connection the body goes out on (`HTTPRequest.connectionID`).
    public let connectionID: UInt64

    init(connection: HTTPConnection) {
        self.connection = connection
        connectionID = connection.id
    }

    /// Queues `bytes` as the next part of the body.
    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, !isClosed, let connection else { return }
        connection.queue.async { connection.streamWrite(bytes, from: self) }
    }

    /// Queues bytes prepared once for many writers (a broadcast): the chunk framing is
    /// done once too, not once per connection.
    public func write(_ prepared: PreparedBodyPart) {
        guard !isClosed, let connection else { return }
        connection.queue.async { connection.streamWrite(prepared, from: self) }
    }

    /// Queues UTF-8 text as the next part of the body.
    public func write(_ text: String) {
        write(Array(text.utf8))
    }

    /// Ends the body cleanly after everything written so far.
    public func finish() {
        guard !isClosed, let connection else { return }
        connection.queue.async { connection.finishStream(from: self) }
    }

    /// Drops the connection now, without the end of the body: the client sees the stream
    /// break (FIN, or RST with `reset`), as when a proxy or the network cuts it.
    public func abort(reset: Bool = false) {
        guard !isClosed, let connection else { return }
        connection.queue.async { connection.abortStream(from: self, reset: reset) }
    }

    /// Runs `body` on the connection's event loop once the bytes written so far that the
    /// socket has not taken are at most `threshold`, or once the stream has ended: how a
    /// producer writes a long backlog at its reader's pace instead of queuing it whole.
    /// Never runs `body` on the caller's thread, so the caller may hold a lock `body` takes.
    public func whenDrained(toAtMost threshold: Int, _ body: @escaping @Sendable () -> Void) {
        guard let connection else {
            DispatchQueue.global().async(execute: body)
            return
        }
        connection.queue.async {
            connection.whenDrained(toAtMost: threshold, progress: {}, body)
        }
    }

    /// Runs `handler` once when the stream ends, or at once if it already has.
    public func onClose(_ handler: @escaping @Sendable (StreamEndReason) -> Void) {
        let endedAlready: StreamEndReason? = state.withLock { state in
            if let reason = state.endReason { return reason }
            state.handlers.append(handler)
            return nil
        }
        if let endedAlready { handler(endedAlready) }
    }

    /// Whether the stream has ended.
    public var isClosed: Bool { state.withLock { $0.endReason != nil } }

    /// Why the stream ended, once it has.
    public var endReason: StreamEndReason? { state.withLock { $0.endReason } }

    /// Records the end and runs the handlers; later calls do nothing.
    func markEnded(_ reason: StreamEndReason) {
        let handlers: [@Sendable (StreamEndReason) -> Void] = state.withLock { state in
            guard state.endReason == nil else { return [] }
            state.endReason = reason
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler(reason) }
    }
}

/// Body bytes framed once for every kind of connection, so a broadcast to many streams
/// copies no bytes per subscriber.
public struct PreparedBodyPart: Sendable {
    /// The bytes as sent on a close-delimited (HTTP/1.0) stream.
    public let raw: [UInt8]
    /// The same bytes as one chunk of a chunked (HTTP/1.1) stream.
    public let chunk: [UInt8]

    public init(_ bytes: [UInt8]) {
        raw = bytes
        chunk = HTTPResponseEncoder.chunk(bytes)
    }
}
