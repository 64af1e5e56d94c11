import Dispatch
import MockBackendSupport

extension HTTPConnection {
    /// Closes once every queued byte is written (`Connection: close`, HTTP/1.0, parse errors).
    func closeAfterWrites() {
        guard lifecycle == .open else { return }
        lifecycle = .closingAfterWrites
        pending.removeAll()
        if outbound.isEmpty, !isPausing { beginLinger() }
    }

    /// Sends FIN, then drains input until the client closes or the linger timeout passes.
    /// Closing at once with unread input would make the kernel send RST, and the client
    /// could lose the response it has not read yet (RFC 9112 §9.6).
    func beginLinger() {
        guard lifecycle == .closingAfterWrites else { return }
        if peerClosed || !stream.lingersBeforeClose {
            close(reason: .connectionClosed)
            return
        }
        lifecycle = .lingering
        stream.shutdownWrite()
        resumeReading()
        setDeadline(.linger)
    }

    /// Closes now: writers are told why, sources and timers are cancelled, and the socket
    /// is closed by the last source's cancel handler. Later calls do nothing.
    func close(reason: StreamEndReason, reset: Bool = false) {
        assertOnQueue()
        guard lifecycle != .closed else { return }
        lifecycle = .closed
        socketCloser.reset = reset
        outbound.removeAll()
        pending.removeAll()
        plainStream = nil
        if let flight = current {
            flight.writer?.markEnded(reason)
            logEnd(of: flight, reason: reason)
        }
        current = nil
        webSocketDidClose(reason)
        readSuspended = false
        writeArmed = false
        readiness.cancel(closing: socketCloser)
        deadlineTimer.cancel()
        pauseTimer?.cancel()
        pauseTimer = nil
        isPausing = false
        context.statistics.withLock { $0.openConnections -= 1 }
        resumeDrainWaiters(progressed: false)
        context.onClosed(id)
    }

    /// Sets the deadline for the connection's current phase. Changing phase only records
    /// the new deadline; the one timer is rescheduled only when the deadline comes earlier
    /// than its next firing, so a busy keep-alive connection does not touch the timer on
    /// every request (rescheduling a Dispatch timer is a round trip through Dispatch's
    /// manager thread): a deadline that moved later is found by `handleDeadline`, which
    /// sleeps on. Re-arming happens only on a phase change, so a client trickling bytes
    /// cannot extend its deadline. Every response passes through `.none` (see `start`), so
    /// the phase after it is armed afresh: the idle timeout counts from the end of the last
    /// response, and the head of a pipelined request from the end of the one before it.
    func setDeadline(_ phase: DeadlinePhase) {
        guard phase != deadlinePhase, lifecycle != .closed else { return }
        deadlinePhase = phase
        let configuration = context.configuration
        let timeout: Duration? =
            switch phase {
            case .none: nil
            case .header: configuration.headerTimeout
            case .body: configuration.bodyTimeout
            case .idle: configuration.idleTimeout
            case .linger:
                shuttingDown ? min(configuration.lingerTimeout, .milliseconds(200)) : configuration.lingerTimeout
            case .webSocketIdle: webSocketIdleTimeout
            case .webSocketClosing: configuration.webSocket.closeTimeout
            }
        guard let timeout else {
            deadline = nil
            return
        }
        let newDeadline = ContinuousClock.now + timeout
        deadline = newDeadline
        if let scheduled = timerFiresAt, scheduled <= newDeadline { return }
        scheduleTimer(at: newDeadline)
    }

    private func scheduleTimer(at instant: ContinuousClock.Instant) {
        timerFiresAt = instant
        let delay = max(.zero, instant - .now)
        deadlineTimer.schedule(deadline: .now() + DispatchDuration.interval(delay))
    }

    /// Picks the phase from what the connection is doing.
    func updateDeadline() {
        // An upgraded connection keeps the WebSocket's deadlines (`HTTPConnection+WebSocket`).
        guard lifecycle == .open, webSocket == nil else { return }
        if current != nil || !pending.isEmpty {
            setDeadline(.none)
        } else if parser.isReadingBody {
            setDeadline(.body)
        } else if parser.hasPartialRequest || servedRequests == 0 {
            setDeadline(.header)
        } else {
            setDeadline(.idle)
        }
    }

    func handleDeadline() {
        timerFiresAt = nil
        guard let deadline, lifecycle != .closed else { return }
        // The timer may fire for a deadline that has since moved later: sleep on.
        if deadline > .now {
            scheduleTimer(at: deadline)
            return
        }
        switch deadlinePhase {
        case .none:
            return
        case .linger:
            close(reason: .connectionClosed)
        case .webSocketIdle, .webSocketClosing:
            handleWebSocketDeadline()
        case .header, .body, .idle:
            // RFC 9112 §9.6: never close a connection on which a request may be in flight.
            // Its bytes can be in the socket with their read event queued behind this one:
            // read them first. The deadline stands (bytes never move it); only a request
            // they complete changes the phase.
            let phase = deadlinePhase
            if hasUnreadInput {
                handleReadable()
                guard lifecycle == .open, deadlinePhase == phase, let deadline = self.deadline, deadline <= .now
                else { return }
                if phase == .idle {
                    // Input no parser has seen yet (part of a TLS record) starts a request
                    // head all the same: the header timeout runs from now.
                    setDeadline(.header)
                    return
                }
            }
            if phase != .idle {
                context.logger.debug("request timed out", metadata: ["connection": "\(id)", "phase": "\(phase)"])
            }
            close(reason: .connectionClosed)
        }
    }

    /// Whether the client has sent bytes not read yet: in the socket (peeked, so they stay
    /// there for the read) or held decrypted inside a TLS stream. For TLS the socket's
    /// bytes are record bytes: a request, or a message of TLS's own.
    var hasUnreadInput: Bool {
        stream.hasBufferedInput || Platform.hasUnreadBytes(stream.fileDescriptor)
    }

    /// Server shutdown: idle connections close now, streams end cleanly, a response in
    /// flight finishes and then the connection closes. A request that reached an idle
    /// connection just before is answered first, with `Connection: close` (RFC 9112 §9.6).
    func beginShutdown() {
        guard lifecycle != .closed else { return }
        shuttingDown = true
        pending.removeAll()
        if let session = webSocket, session.state != .closed {
            shutDownWebSocket(session)
            return
        }
        if current == nil, lifecycle == .open, hasUnreadInput {
            // Answered as `processPending` answers during shutdown: without keep-alive.
            handleReadable()
            guard lifecycle != .closed else { return }
        }
        guard let flight = current else {
            // FIN first, then drain: closing with unread input would send RST.
            closeAfterWrites()
            return
        }
        current?.keepAlive = false
        if flight.producing { endStream(reason: .serverStopping) }
    }
}
