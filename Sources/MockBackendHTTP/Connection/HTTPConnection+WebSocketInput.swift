extension HTTPConnection {
    /// Bytes from the client of an upgraded connection: frames in, answers out. Any byte is
    /// a sign of life and moves the idle deadline (the timer is not touched: a deadline that
    /// moved later is found by `handleDeadline`, which sleeps on).
    func receiveWebSocket(_ bytes: UnsafeRawBufferPointer) {
        guard let session = webSocket, session.state != .closed else { return }
        if deadlinePhase == .webSocketIdle, let timeout = webSocketIdleTimeout { deadline = .now + timeout }
        for event in session.decoder.feed(bytes) {
            switch event {
            case .frame(let frame):
                if let message = session.assembler.append(frame) { handle(message, in: session) }
            case .failure(let error):
                failWebSocket(session, error)
            }
            guard lifecycle != .closed else { return }
        }
    }

    private func handle(_ message: WebSocketInboundMessage, in session: WebSocketSession) {
        switch message {
        case .text, .binary:
            // Once the server has sent its close frame, the client's messages are dropped.
            if session.state == .open { session.writer.deliver(message) }
        case .ping(let payload):
            // §5.5.3: a pong with the same payload; none once the server has sent its close.
            if session.state == .open { enqueueWebSocket(WebSocketFrameEncoder.pong(payload), kind: .control) }
        case .pong:
            // §5.5.3: a pong may come unasked and needs no answer; it was a sign of life.
            break
        case .close(let payload):
            // §5.5.1: answer a close frame with one, echoing its code (1000 when it had
            // none); when the server closed first, this one completes the handshake.
            if session.state == .open {
                sendClose(WebSocketClosePayload(code: payload.code ?? .normalClosure), in: session)
            }
            finishWebSocket(
                session,
                WebSocketCloseEvent(
                    code: payload.code ?? .noStatusReceived, reason: payload.reason, sentCode: session.sentCode,
                    transport: .finished))
        }
    }

    /// §7.1.7: the client broke the protocol. The server sends a close frame with the
    /// error's code (unless it sent one already) and closes without waiting for an answer.
    private func failWebSocket(_ session: WebSocketSession, _ error: WebSocketProtocolError) {
        context.logger.debug("WebSocket protocol error", metadata: ["connection": "\(id)", "error": "\(error)"])
        if session.state == .open {
            sendClose(WebSocketClosePayload(code: error.closeCode, reason: error.detail), in: session)
        }
        finishWebSocket(
            session,
            WebSocketCloseEvent(code: .abnormalClosure, sentCode: session.sentCode, transport: .connectionClosed))
    }

    /// Ends the session: the application learns how, nothing goes out but what is queued,
    /// and once that is written the TCP connection closes, the server first (§7.1.1): FIN,
    /// then input is drained (the lingering close of `completeCurrent`). The last writes
    /// get a fresh `closeTimeout`.
    func finishWebSocket(_ session: WebSocketSession, _ event: WebSocketCloseEvent) {
        guard session.state != .closed else { return }
        session.state = .closed
        session.stopPinging()
        current?.producing = false
        current?.keepAlive = false
        current?.endReason = event.transport
        setDeadline(.none)
        setDeadline(.webSocketClosing)
        session.writer.markClosed(event)
        flush()
    }

    /// The client sent FIN. Before the closing handshake that is an abnormal end (1006);
    /// after it, the last frames are written and then the connection closes.
    func webSocketPeerDidClose() {
        guard let session = webSocket, session.state == .closed else {
            close(reason: .clientClosed)
            return
        }
        stopReading()
    }

    /// The WebSocket's own timeouts (`WebSocketConfiguration`): nothing received for
    /// `idleTimeout` (the peer is taken for gone: dropped without a close frame), or no
    /// close frame from the client within `closeTimeout` of the server's (§7.1.1: the
    /// server closes the TCP connection anyway).
    func handleWebSocketDeadline() {
        let phase = deadlinePhase
        if hasUnreadInput {
            // Bytes whose read event is still queued count: a pong may be among them.
            handleReadable()
            guard lifecycle == .open, deadlinePhase == phase, let deadline, deadline <= .now else { return }
        }
        guard let session = webSocket, !isBlackholed else {
            // A blackholed connection ends only when the server ends it.
            setDeadline(.none)
            return
        }
        switch session.state {
        case .open:
            context.logger.debug("WebSocket idle timeout", metadata: ["connection": "\(id)"])
            close(reason: .connectionClosed)
        case .closeSent:
            finishWebSocket(
                session,
                WebSocketCloseEvent(
                    code: .abnormalClosure, sentCode: session.sentCode,
                    transport: shuttingDown ? .serverStopping : .connectionClosed))
        case .closed:
            close(reason: .connectionClosed)
        }
    }

    /// `WebSocketConfiguration.idleTimeout`; nil when zero (never idle).
    var webSocketIdleTimeout: Duration? {
        let timeout = context.configuration.webSocket.idleTimeout
        return timeout > .zero ? timeout : nil
    }

    /// Server shutdown: close 1001 (§7.4.1, going away), then the closing handshake, within
    /// the server's grace period. A session already closing goes on as it was.
    func shutDownWebSocket(_ session: WebSocketSession) {
        if isBlackholed {
            close(reason: .serverStopping)
            return
        }
        guard session.state == .open else { return }
        sendClose(WebSocketClosePayload(code: .goingAway, reason: "server stopping"), in: session)
        session.state = .closeSent
        setDeadline(.webSocketClosing)
    }

    /// From `close(reason:)`: the connection is gone. A session not over yet ends abnormally
    /// (1006) with the transport's reason; its ping timer stops either way.
    func webSocketDidClose(_ reason: StreamEndReason) {
        guard let session = webSocket else { return }
        webSocket = nil
        session.state = .closed
        session.stopPinging()
        session.writer.markClosed(
            WebSocketCloseEvent(code: .abnormalClosure, sentCode: session.sentCode, transport: reason))
    }
}
