import Dispatch
import MockBackendSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One WebSocket connection as the application sees it: sends messages, closes, hears the
/// client. Safe to use from any thread.
///
/// Sends are framed on the caller's thread and queued in call order on the connection's
/// event loop, through the response's `ResponseShaper` if it has one. Once the connection
/// has begun closing (`close`, the client's close frame, a protocol failure) sends are
/// dropped; once it has ended, `onClose` handlers have run, each exactly once.
/// Handlers run on the connection's event loop and must not block. A send, close or abort
/// made from inside `onText` or `onBinary` takes effect at once, before the server reads
/// the client's next frame: an echo goes out before the answer to anything sent after the
/// message (a pong, a close).
///
/// Invariant: `connection` is read and cleared only on the connection's loop (`queue`); it
/// is cleared when the connection ends, so a writer kept by its owner does not keep a
/// closed connection alive. Everything else is constant or under `state`'s lock.
public final class WebSocketWriter: @unchecked Sendable {
    private struct State {
        var closeEvent: WebSocketCloseEvent?
        var closeHandlers: [@Sendable (WebSocketCloseEvent) -> Void] = []
        var textHandler: (@Sendable (String) -> Void)?
        var binaryHandler: (@Sendable ([UInt8]) -> Void)?
        /// The thread running a message handler, while it does (on the connection's loop).
        var deliveringThread: pthread_t?
        /// Why the application ends the connection, in the stream journal's words.
        var namedEnd: String?
    }

    /// Strong while the connection lives (see above).
    private var connection: WebSocketConnection?
    let queue: DispatchQueue
    private let state = LockedValue(State())

    /// The connection the WebSocket runs on (`HTTPRequest.connectionID` of its handshake).
    public let connectionID: UInt64
    /// The most bytes the connection holds unsent before it drops a reader that fell behind.
    public let maxUnsentBytes: Int
    /// The data messages that have left for the client, counted as their last byte is
    /// written to the socket.
    public let deliveries = DeliveryTally()

    init(connection: WebSocketConnection) {
        self.connection = connection
        queue = connection.queue
        connectionID = connection.channel.id
        maxUnsentBytes = connection.channel.maxUnsentBytes
    }

    /// Sends a text message, in one frame.
    public func send(text: String) {
        send(frame: WebSocketFrameEncoder.text(text))
    }

    /// Sends a binary message, in one frame.
    public func send(binary: [UInt8]) {
        send(frame: WebSocketFrameEncoder.binary(binary))
    }

    /// Sends a message framed once for many connections (a broadcast).
    public func send(_ message: PreparedWebSocketMessage) {
        send(frame: message.frame)
    }

    private func send(frame: [UInt8]) {
        onLoop { connection in connection.send(frame, from: self) }
    }

    /// Runs `body` on the connection's loop: at once when called from a message handler
    /// (already on the loop, inside `deliver`), else in a block queued there. Nothing once
    /// the connection has ended.
    private func onLoop(_ body: @escaping @Sendable (WebSocketConnection) -> Void) {
        let inline: Bool? = state.withLock { state in
            guard state.closeEvent == nil else { return nil }
            guard let thread = state.deliveringThread else { return false }
            return pthread_equal(thread, pthread_self()) != 0
        }
        switch inline {
        case true?: if let connection { body(connection) }
        case false?: queue.async { if let connection = self.connection { body(connection) } }
        case nil: break
        }
    }

    /// Sends `messages`; on the connection's loop (`StreamSink.writeOnExecutor`).
    func sendOnLoop(_ messages: PreparedWebSocketMessages) {
        connection?.send(messages, from: self)
    }

    /// Starts the closing handshake (RFC 6455 §7.1.2): sends a close frame with `code` and
    /// `reason` (cut to 123 bytes) after every message sent so far, then waits for the
    /// client's close frame, or `WebSocketConfiguration.closeTimeout`, and closes the TCP
    /// connection, the server first (§7.1.1). Later calls do nothing.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        let payload = WebSocketClosePayload(code: code, reason: reason)
        onLoop { connection in connection.close(payload, from: self) }
    }

    /// Drops the connection now, without a close frame: the client sees the TCP connection
    /// end (FIN, or RST with `reset`) as when the network cuts it, and reports 1006.
    public func abort(reset: Bool = false) {
        onLoop { connection in connection.abort(from: self, reset: reset) }
    }

    /// Runs `handler` once when the connection has ended, or at once if it already has.
    public func onClose(_ handler: @escaping @Sendable (WebSocketCloseEvent) -> Void) {
        let endedAlready: WebSocketCloseEvent? = state.withLock { state in
            if let event = state.closeEvent { return event }
            state.closeHandlers.append(handler)
            return nil
        }
        if let endedAlready { handler(endedAlready) }
    }

    /// Runs `handler` for each text message the client sends from now on, replacing the
    /// handler set before. Without one, text messages are read, checked and dropped.
    public func onText(_ handler: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.textHandler = handler }
    }

    /// Runs `handler` for each binary message the client sends from now on, replacing the
    /// handler set before. Without one, binary messages are read and dropped.
    public func onBinary(_ handler: @escaping @Sendable ([UInt8]) -> Void) {
        state.withLock { $0.binaryHandler = handler }
    }

    /// Runs `body` on the connection's event loop once the bytes sent so far that the
    /// socket has not taken are at most `threshold`, or once the connection has ended: how a
    /// sender of a long history goes at its reader's pace. Never runs `body` on the caller's
    /// thread, so the caller may hold a lock `body` takes.
    public func whenDrained(toAtMost threshold: Int, _ body: @escaping @Sendable () -> Void) {
        queue.async { self.whenDrainedOnLoop(toAtMost: threshold, progress: {}, body) }
    }

    /// As `whenDrained`, on the connection's loop; `progress` runs when the socket took some.
    func whenDrainedOnLoop(
        toAtMost threshold: Int, progress: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () -> Void
    ) {
        guard let connection else { return body() }
        connection.whenDrained(toAtMost: threshold, progress: progress, body)
    }

    /// Names why the application is about to end the connection (`StreamSink.nameEnd`).
    public func nameEnd(_ word: String) {
        state.withLock { $0.namedEnd = word }
    }

    /// The word the application gave for the end, if it gave one.
    public var namedEnd: String? { state.withLock { $0.namedEnd } }

    /// Whether the connection has ended (`onClose` handlers have run).
    public var isClosed: Bool { state.withLock { $0.closeEvent != nil } }

    /// How the connection ended, once it has.
    public var closeEvent: WebSocketCloseEvent? { state.withLock { $0.closeEvent } }

    /// Hands a client's data message to its handler, on the connection's event loop.
    func deliver(_ message: WebSocketInboundMessage) {
        let (text, binary) = state.withLock { state in
            state.deliveringThread = pthread_self()
            return (state.textHandler, state.binaryHandler)
        }
        defer { state.withLock { $0.deliveringThread = nil } }
        switch message {
        case .text(let value): text?(value)
        case .binary(let bytes): binary?(bytes)
        case .ping, .pong, .close: break
        }
    }

    /// Records the end and runs the close handlers; later calls do nothing. The message
    /// handlers are dropped, so closures they capture are released.
    func markClosed(_ event: WebSocketCloseEvent) {
        connection = nil
        let handlers: [@Sendable (WebSocketCloseEvent) -> Void] = state.withLock { state in
            guard state.closeEvent == nil else { return [] }
            state.closeEvent = event
            state.textHandler = nil
            state.binaryHandler = nil
            defer { state.closeHandlers = [] }
            return state.closeHandlers
        }
        for handler in handlers { handler(event) }
    }
}

/// How a WebSocket connection ended, as `WebSocketWriter.onClose` reports it.
public struct WebSocketCloseEvent: Sendable, Equatable, CustomStringConvertible {
    /// The connection close code of RFC 6455 §7.1.5: the code of the client's close frame,
    /// 1005 (`noStatusReceived`) when that frame had none, 1006 (`abnormalClosure`) when no
    /// valid close frame came (the client vanished, broke the protocol, or the server
    /// dropped the connection).
    public var code: WebSocketCloseCode
    /// The reason in the client's close frame; empty otherwise.
    public var reason: String
    /// The code of the close frame the server sent, if it sent one: its own `close`, an echo
    /// of the client's, 1002/1007/1009 for a client that broke the protocol, 1001 when the
    /// server stops.
    public var sentCode: WebSocketCloseCode?
    /// How the connection under it ended: `finished` once both close frames have crossed;
    /// else as for a stream (`clientClosed`, `slowReader`, `serverStopping`, `cut` by a
    /// shaper, `aborted`, `connectionClosed` for a timeout or a protocol failure).
    public var transport: StreamEndReason

    public init(
        code: WebSocketCloseCode, reason: String = "", sentCode: WebSocketCloseCode?, transport: StreamEndReason
    ) {
        self.code = code
        self.reason = reason
        self.sentCode = sentCode
        self.transport = transport
    }

    /// Whether the closing handshake completed: a close frame each way (§7.1.4).
    public var wasClean: Bool { code != .abnormalClosure && sentCode != nil }

    public var description: String {
        "code=\(code)\(reason.isEmpty ? "" : " reason=\"\(reason)\"") sent=\(sentCode.map(\.description) ?? "none") "
            + "transport=\(transport)"
    }
}
