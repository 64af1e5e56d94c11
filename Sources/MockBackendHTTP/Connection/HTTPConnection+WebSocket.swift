import Dispatch
import MockBackendSupport

extension HTTPConnection {
    /// Answers the upgrade request with 101 and switches the connection to WebSocket
    /// (RFC 6455 §4.2.2, RFC 9110 §7.8): the bytes the client sent after the request are its
    /// first frames, the HTTP timeouts give way to the WebSocket ones, and `onOpen` gets the
    /// writer before any frame is read. Called from `start` on the connection's queue.
    func startWebSocket(_ upgrade: WebSocketUpgrade, headers: HTTPHeaders, flight original: ResponseInFlight) {
        // Only the request the parser stopped after may switch: it is the last one read, so
        // nothing waits behind it (a request in `pending` would be one after it).
        guard parser.isAwaitingUpgrade, pending.isEmpty, original.request.asksToSwitchProtocols, !shuttingDown else {
            let problem =
                shuttingDown
                ? ProblemDetails(status: 503, code: "SERVER_STOPPING", detail: "The server is stopping.")
                : ProblemDetails(
                    status: 500, code: "WEBSOCKET_UPGRADE_UNAVAILABLE",
                    detail: "A WebSocket response answers only the upgrade request it was made for.")
            // `start` parses what followed the request as HTTP.
            start(problem.response, to: original.request, keepAlive: false)
            return
        }
        var flight = original
        flight.status = 101
        flight.producing = true
        flight.keepAlive = false
        current = flight
        webSocketShaped = flight.shaper != nil
        enqueueShaped(WebSocketHandshake.switchingProtocolsHead(accept: upgrade.accept, headers: headers), kind: .head)
        let settings = context.configuration.webSocket
        let session = WebSocketSession(
            writer: WebSocketWriter(connection: self), maxMessageBytes: settings.maxMessageBytes)
        webSocket = session
        let early = parser.takeBytesAfterUpgrade()
        setDeadline(.webSocketIdle)
        startPinging(session, every: settings.pingInterval)
        flush()
        guard lifecycle != .closed else { return }
        upgrade.onOpen(session.writer)
        if !early.isEmpty { early.withUnsafeBytes { receiveWebSocket($0) } }
        if peerClosed, lifecycle == .open { webSocketPeerDidClose() }
    }

    /// The request the parser stopped after is answered without switching: what followed
    /// it is HTTP after all, and is parsed now.
    func declineUpgradeIfAwaiting() {
        guard parser.isAwaitingUpgrade, pending.isEmpty else { return }
        enqueue(parser.declineUpgrade())
    }

    /// A data message from the application; stale writers and closing sessions are ignored.
    func webSocketSend(_ frame: [UInt8], from writer: WebSocketWriter) {
        guard let session = webSocket, session.writer === writer, session.state == .open else { return }
        enqueueWebSocket(frame, kind: .message, events: 1)
    }

    /// Data messages from a broadcast batch: one write of their joined frames, or through the
    /// shaper one `.message` write per frame, as `webSocketSend(_:from:)` would make them.
    func webSocketSend(_ messages: PreparedWebSocketMessages, from writer: WebSocketWriter) {
        guard let session = webSocket, session.writer === writer, session.state == .open else { return }
        guard webSocketShaped else {
            enqueueWebSocket(messages.joined, kind: .message, events: messages.frames.count)
            return
        }
        for frame in messages.frames {
            guard session.state == .open else { return }
            enqueueWebSocket(frame, kind: .message, events: 1)
        }
    }

    /// Queues frames carrying `events` data messages, through the shaper if the response
    /// has one, or disconnects a reader that has fallen too far behind
    /// (`maxUnsentStreamBytes`, as for streams). Without a shaper and with nothing queued
    /// before them, they go straight to the socket.
    func enqueueWebSocket(_ frame: [UInt8], kind: ResponseWriteKind, events: Int = 0) {
        // A blackholed connection sends nothing more; queuing would only grow memory.
        guard lifecycle == .open, !isBlackholed else { return }
        if !webSocketShaped, outbound.isEmpty, !writeArmed, !isPausing {
            writeDirectly(frame, events: events)
            return
        }
        if outbound.unsentBytes + frame.count > context.configuration.maxUnsentStreamBytes {
            disconnectSlowReader()
            return
        }
        enqueueShaped(frame, kind: kind, events: events)
        flush()
    }

    /// The application's `close`: the server's half of the closing handshake (§7.1.2).
    func closeWebSocket(_ payload: WebSocketClosePayload, from writer: WebSocketWriter) {
        guard let session = webSocket, session.writer === writer, session.state == .open, lifecycle == .open else {
            return
        }
        // Nothing reaches the client of a blackholed connection, not even a close frame, and
        // it is never closed but by an abort or the server stopping: the client must notice
        // on its own that nothing comes.
        guard !isBlackholed else { return }
        sendClose(payload, in: session)
        session.state = .closeSent
        setDeadline(.webSocketClosing)
    }

    /// Queues the server's close frame (§5.5.1) and remembers its code.
    func sendClose(_ payload: WebSocketClosePayload, in session: WebSocketSession) {
        session.sentCode = payload.code
        enqueueWebSocket(WebSocketFrameEncoder.close(payload), kind: .control)
    }

    /// The application's `abort`: no close frame, the TCP connection just ends.
    func abortWebSocket(from writer: WebSocketWriter, reset: Bool) {
        guard let session = webSocket, session.writer === writer, lifecycle != .closed else { return }
        close(reason: .aborted, reset: reset)
    }

    /// Pings every `interval` (§5.5.2) while the session is open; none for zero.
    private func startPinging(_ session: WebSocketSession, every interval: Duration) {
        guard interval > .zero else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let statistics = context.statistics
        statistics.withLock { $0.activeTimers += 1 }
        timer.setEventHandler { [weak self] in self?.sendPing() }
        timer.setCancelHandler { statistics.withLock { $0.activeTimers -= 1 } }
        let period = DispatchDuration.interval(interval)
        timer.schedule(deadline: .now() + period, repeating: period)
        timer.activate()
        session.pingTimer = timer
    }

    private func sendPing() {
        guard let session = webSocket, session.state == .open, !isBlackholed else { return }
        enqueueWebSocket(WebSocketFrameEncoder.ping(), kind: .control)
    }
}
