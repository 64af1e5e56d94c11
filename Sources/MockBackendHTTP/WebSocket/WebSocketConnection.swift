import Dispatch
import Logging
import MockBackendSupport

/// A connection after its switch to WebSocket (RFC 6455): it takes the socket over from
/// the HTTP connection that answered the upgrade (`SocketChannel`, with the 101 head and
/// any bytes the client sent after its request), and its one timer. Frames in, answers
/// and the application's messages out, the closing handshake, pings and timeouts — its
/// decisions are `WebSocketStateMachine`'s; this class carries them out.
///
/// Invariant: every mutable property is touched only on the channel's queue (the event
/// loop); the writer hops onto it. That confinement is what makes the `@unchecked
/// Sendable` sound.
final class WebSocketConnection: SocketChannelOwner, @unchecked Sendable {
    let channel: SocketChannel
    private let timer: DeadlineTimer
    let logger: Logger
    private(set) var writer: WebSocketWriter!
    private var machine: WebSocketStateMachine<ContinuousClock>
    var decoder: WebSocketFrameDecoder
    var assembler = WebSocketMessageAssembler()
    /// The code of the close frame the server sent, once it has sent one.
    private(set) var sentCode: WebSocketCloseCode?
    /// Whether the response that switched has a shaper: a broadcast of several messages
    /// then goes through it one message at a time.
    private let shaped: Bool
    private var shuttingDown = false
    /// Told once, when the connection has closed, with why.
    private let onClosed: (StreamEndReason) -> Void
    private var isClosed = false
    /// How long a closing connection drains the client's input after its FIN.
    private let lingerTimeout: Duration
    /// While the connection lingers before its close: the reason it will close with.
    private var lingering: StreamEndReason?

    var queue: DispatchQueue { channel.queue }
    var state: WebSocketStateMachine<ContinuousClock>.State { machine.state }

    init(
        channel: SocketChannel, timer: DeadlineTimer, configuration: WebSocketConfiguration, lingerTimeout: Duration,
        logger: Logger, onClosed: @escaping (StreamEndReason) -> Void
    ) {
        self.channel = channel
        self.timer = timer
        self.logger = logger
        self.onClosed = onClosed
        self.lingerTimeout = lingerTimeout
        shaped = channel.shaper != nil
        decoder = WebSocketFrameDecoder(maxMessageBytes: configuration.maxMessageBytes)
        machine = WebSocketStateMachine(
            timeouts: .init(
                ping: configuration.pingInterval > .zero ? configuration.pingInterval : nil,
                idle: configuration.idleTimeout > .zero ? configuration.idleTimeout : nil,
                close: configuration.closeTimeout),
            openedAt: .now)
        writer = WebSocketWriter(connection: self)
        channel.deliveries = writer.deliveries
    }

    /// Takes the socket over: the timer, the application's `onOpen`, then the bytes the
    /// client sent after its request (its first frames), and a FIN that came with them.
    func start(earlyBytes: [UInt8], onOpen: (WebSocketWriter) -> Void, peerClosed: Bool) {
        channel.owner = self
        timer.handler = { [weak self] in self?.handleTimer() }
        apply(machine.start())
        channel.flush()
        guard !isClosed else { return }
        onOpen(writer)
        if !earlyBytes.isEmpty { earlyBytes.withUnsafeBytes { channelReceived($0) } }
        if peerClosed, !isClosed { channelPeerClosed() }
        // Reading waited for the answer to the upgrade (RFC 9110 §7.8); frames follow now.
        if !isClosed { channel.resumeReading() }
    }

    // MARK: The channel

    func channelReceived(_ bytes: UnsafeRawBufferPointer) {
        guard machine.state != .closed else { return }
        machine.received(at: .now)
        for event in decoder.feed(bytes) {
            switch event {
            case .frame(let frame):
                if let message = assembler.append(frame) { handle(message) }
            case .failure(let error):
                fail(error)
            }
            guard !isClosed else { return }
        }
    }

    func channelFinishedReading() {}

    /// The client sent FIN. Before the closing handshake that is an abnormal end (1006);
    /// after it, the last frames are written and then the connection closes.
    func channelPeerClosed() {
        if let reason = lingering {
            close(reason: reason)
            return
        }
        guard machine.state == .closed else {
            close(reason: .clientClosed)
            return
        }
        channel.stopReading()
    }

    /// Everything queued is written: once the session is over, the TCP connection closes,
    /// the server first (§7.1.1): FIN, then input is drained until the client's close.
    func channelDrained() {
        guard machine.state == .closed, !isClosed, lingering == nil else { return }
        // The upgrade request's exchange is complete, as a response written to its end.
        channel.statistics.withLock { $0.requestsServed += 1 }
        close(reason: writer.closeEvent?.transport ?? .finished, lingering: true)
    }

    func channelFailed(_ reason: StreamEndReason, reset: Bool) {
        if reason == .slowReader {
            logger.info(
                "disconnecting slow reader",
                metadata: ["connection": "\(channel.id)", "unsent": "\(channel.outbound.unsentBytes)"])
        }
        close(reason: reason, reset: reset)
    }

    // MARK: Messages in

    private func handle(_ message: WebSocketInboundMessage) {
        switch message {
        case .text, .binary:
            // Once the server has sent its close frame, the client's messages are dropped.
            if machine.state == .open { writer.deliver(message) }
        case .ping(let payload):
            // §5.5.3: a pong with the same payload; none once the server has sent its close.
            if machine.state == .open { enqueue(WebSocketFrameEncoder.pong(payload), kind: .control) }
        case .pong:
            // §5.5.3: a pong may come unasked and needs no answer; it was a sign of life.
            break
        case .close(let payload):
            // §5.5.1: answer a close frame with one, echoing its code (1000 when it had
            // none); when the server closed first, this one completes the handshake.
            if machine.state == .open { sendClose(WebSocketClosePayload(code: payload.code ?? .normalClosure)) }
            finish(
                WebSocketCloseEvent(
                    code: payload.code ?? .noStatusReceived, reason: payload.reason, sentCode: sentCode,
                    transport: .finished))
        }
    }

    /// §7.1.7: the client broke the protocol. The server sends a close frame with the
    /// error's code (unless it sent one already) and closes without waiting for an answer.
    private func fail(_ error: WebSocketProtocolError) {
        logger.debug("WebSocket protocol error", metadata: ["connection": "\(channel.id)", "error": "\(error)"])
        if machine.state == .open {
            sendClose(WebSocketClosePayload(code: error.closeCode, reason: error.detail))
        }
        finish(WebSocketCloseEvent(code: .abnormalClosure, sentCode: sentCode, transport: .connectionClosed))
    }

    // MARK: Messages out

    /// A data message from the application; stale writers and closing sessions are ignored.
    func send(_ frame: [UInt8], from writer: WebSocketWriter) {
        guard writer === self.writer, machine.state == .open else { return }
        enqueue(frame, kind: .message, events: 1)
    }

    /// Data messages from a broadcast: one write of their joined frames, or through the
    /// shaper one `.message` write per frame, as `send(_:from:)` would make them.
    func send(_ messages: PreparedWebSocketMessages, from writer: WebSocketWriter) {
        guard writer === self.writer, machine.state == .open else { return }
        guard shaped else {
            enqueue(messages.joined, kind: .message, events: messages.frames.count)
            return
        }
        for frame in messages.frames {
            guard machine.state == .open else { return }
            enqueue(frame, kind: .message, events: 1)
        }
    }

    /// Queues frames carrying `events` data messages and writes them, through the shaper if
    /// the response has one. A blackholed connection sends nothing more: queuing would only
    /// grow memory.
    private func enqueue(_ frame: [UInt8], kind: ResponseWriteKind, events: Int = 0) {
        guard !isClosed, !channel.isBlackholed else { return }
        channel.writeStream(frame, kind: kind, events: events)
        if channel.isBlackholed { machine.blackholed() }
    }

    /// The application's `close`: the server's half of the closing handshake (§7.1.2).
    func close(_ payload: WebSocketClosePayload, from writer: WebSocketWriter) {
        guard writer === self.writer, machine.state == .open, !isClosed else { return }
        // Nothing reaches the client of a blackholed connection, not even a close frame, and
        // it is never closed but by an abort or the server stopping: the client must notice
        // on its own that nothing comes.
        guard !channel.isBlackholed else { return }
        sendClose(payload)
        apply(machine.closeSent(at: .now))
    }

    /// Queues the server's close frame (§5.5.1) and remembers its code.
    private func sendClose(_ payload: WebSocketClosePayload) {
        sentCode = payload.code
        enqueue(WebSocketFrameEncoder.close(payload), kind: .control)
    }

    /// The application's `abort`: no close frame, the TCP connection just ends.
    func abort(from writer: WebSocketWriter, reset: Bool) {
        guard writer === self.writer else { return }
        close(reason: .aborted, reset: reset)
    }

    /// Runs `resume` once at most `threshold` written bytes are unsent, or once closed.
    func whenDrained(
        toAtMost threshold: Int, progress: @escaping @Sendable () -> Void, _ resume: @escaping @Sendable () -> Void
    ) {
        channel.whenDrained(toAtMost: threshold, progress: progress, resume)
    }

    // MARK: The end

    /// Ends the session: the application learns how, nothing goes out but what is queued,
    /// and once that is written the TCP connection closes (`channelDrained`). The last
    /// writes get a fresh close timeout.
    private func finish(_ event: WebSocketCloseEvent) {
        guard machine.state != .closed else { return }
        apply(machine.finished(at: .now))
        writer.markClosed(event)
        channel.flush()
    }

    /// Server shutdown: close 1001 (§7.4.1, going away), then the closing handshake, within
    /// the server's grace period. A session already closing goes on as it was; a
    /// blackholed connection just closes.
    func beginShutdown() {
        shuttingDown = true
        if channel.isBlackholed {
            close(reason: .serverStopping)
            return
        }
        guard machine.state == .open else { return }
        sendClose(WebSocketClosePayload(code: .goingAway, reason: "server stopping"))
        apply(machine.closeSent(at: .now))
    }

    /// Closes the TCP connection now; with `lingering`, after a FIN and a drain of what the
    /// client still sends (the server closes first, §7.1.1). A session not over yet ends
    /// abnormally (1006) with `reason`. Later calls do nothing.
    func close(reason: StreamEndReason, reset: Bool = false, lingering linger: Bool = false) {
        guard !isClosed else { return }
        if linger, lingering == nil, channel.lingersBeforeClose, !channel.stoppedReading {
            lingerThenClose(reason: reason)
            return
        }
        isClosed = true
        timer.cancel()
        channel.close(reset: reset)
        writer.markClosed(WebSocketCloseEvent(code: .abnormalClosure, sentCode: sentCode, transport: reason))
        onClosed(reason)
    }

    /// FIN, then what the client sends is drained until it closes or the linger timeout
    /// (short while the server stops).
    private func lingerThenClose(reason: StreamEndReason) {
        lingering = reason
        channel.shutdownWrite()
        channel.resumeReading(evenIfStopped: true)
        timer.schedule(at: .now + (shuttingDown ? min(lingerTimeout, .milliseconds(200)) : lingerTimeout))
    }

    private func handleTimer() {
        guard !isClosed else { return }
        if let reason = lingering {
            close(reason: reason)
            return
        }
        if channel.isBlackholed { machine.blackholed() }
        var step = machine.timerFired(at: .now, hasUnreadInput: channel.hasUnreadInput)
        if step.action == .readFirst {
            channel.handleReadable()
            guard !isClosed else { return }
            step = machine.afterReading(at: .now)
        }
        apply(step)
    }

    private func apply(_ step: WebSocketStateMachine<ContinuousClock>.Step) {
        if let instant = step.timer { timer.schedule(at: instant) }
        switch step.action {
        case .none, .readFirst:
            break
        case .ping:
            if !channel.isBlackholed { enqueue(WebSocketFrameEncoder.ping(), kind: .control) }
        case .giveUpClosingHandshake:
            finish(
                WebSocketCloseEvent(
                    code: .abnormalClosure, sentCode: sentCode,
                    transport: shuttingDown ? .serverStopping : .connectionClosed))
        case .close(let reason):
            if reason == .connectionClosed, machine.state == .open {
                logger.debug("WebSocket idle timeout", metadata: ["connection": "\(channel.id)"])
            }
            close(reason: reason)
        }
    }
}
