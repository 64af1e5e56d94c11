import Dispatch
import MockBackendSupport

extension HTTPConnection {
    /// Carries out a step of the state machine.
    func apply(_ step: Machine.Step) {
        if let instant = step.timer { timer.schedule(at: instant) }
        switch step.action {
        case .none:
            break
        case .processPending:
            processPending()
        case .resumeReading:
            channel.resumeReading()
        case .stopReadingAndProcess:
            channel.stopReading()
            processPending()
        case .linger:
            // FIN first, then drain: closing with unread input would send RST.
            channel.shutdownWrite()
            channel.resumeReading(evenIfStopped: true)
        case .readFirst(let deadline):
            channel.handleReadable()
            guard machine.phase != .closed else { return }
            apply(machine.deadlineAfterReading(deadline, at: .now))
        case .close(let reason):
            closed(reason: reason)
        }
    }

    func handleTimer() {
        guard machine.phase != .closed else { return }
        let phase = machine.deadlinePhase
        let step = machine.timerFired(at: .now, hasUnreadInput: channel.hasUnreadInput)
        if case .close = step.action, phase != .idle, phase != .linger {
            context.logger.debug("request timed out", metadata: ["connection": "\(id)", "phase": "\(phase)"])
        }
        apply(step)
    }

    /// Picks the timeout from what the connection is doing.
    func updateDeadline() {
        apply(machine.update(activity, at: .now))
    }

    /// What the connection is doing, as its timeouts see it.
    var activity: Machine.Activity {
        if current != nil || !pending.isEmpty { return .responding }
        if parser.isReadingBody { return .readingBody }
        if parser.hasPartialRequest { return .readingHead }
        return .betweenRequests
    }

    /// Closes once every queued byte is written (`Connection: close`, HTTP/1.0, parse errors).
    func closeAfterWrites() {
        pending.removeAll()
        apply(machine.closeAfterWrites(writesPending: !channel.outbound.isEmpty || channel.isPausing, at: .now))
    }

    /// Closes now, whatever the phase: writers are told why, the channel closes and the
    /// server hears of it. Later calls do nothing.
    func close(reason: StreamEndReason, reset: Bool = false) {
        assertOnQueue()
        #if canImport(CNghttp2)
        if let http2 {
            http2.close(reason: reason, reset: reset)
            return
        }
        #endif
        if let upgraded {
            upgraded.close(reason: reason, reset: reset)
            return
        }
        let step = machine.close(reason)
        guard case .close = step.action else { return }
        closed(reason: reason, reset: reset)
    }

    /// The machine has closed the connection: carries it out once.
    private func closed(reason: StreamEndReason, reset: Bool = false) {
        guard !channel.isClosed else { return }
        channel.close(reset: reset)
        timer.cancel()
        awaiting?.cancel()
        awaiting = nil
        requestBody?.abort()
        requestBody = nil
        pending.removeAll()
        plainStream = nil
        if let flight = current {
            flight.writer?.markEnded(reason)
            logEnd(of: flight, reason: reason)
        }
        current = nil
        context.onClosed(id)
    }

    /// The WebSocket that took the socket over has closed: the upgrade request's log line,
    /// and the server hears of it.
    func upgradedConnectionClosed(_ reason: StreamEndReason) {
        _ = machine.close(reason)
        timer.cancel()
        if let flight = current { logEnd(of: flight, as: upgraded?.writer.namedEnd ?? reason.description) }
        current = nil
        context.onClosed(id)
    }

    /// Server shutdown: idle connections close now, streams end cleanly, a response in
    /// flight finishes and then the connection closes. A request that reached an idle
    /// connection just before is answered first, with `Connection: close` (RFC 9112 §9.6).
    func beginShutdown() {
        #if canImport(CNghttp2)
        if let http2 {
            http2.beginShutdown()
            return
        }
        #endif
        if let upgraded {
            upgraded.beginShutdown()
            return
        }
        guard machine.phase != .closed else { return }
        machine.beginShutdown()
        pending.removeAll()
        if current == nil, machine.phase == .open, channel.hasUnreadInput {
            // Answered as `processPending` answers during shutdown: without keep-alive.
            channel.handleReadable()
            guard machine.phase != .closed else { return }
        }
        guard let flight = current else {
            // FIN first, then drain: closing with unread input would send RST.
            closeAfterWrites()
            return
        }
        current?.keepAlive = false
        if flight.producing { endStream(reason: .serverStopping) }
        // An answer still to come (an upstream's) is not waited for.
        if awaiting != nil { close(reason: .serverStopping) }
    }

    // MARK: The channel

    /// Feeds bytes to the parser and queues what it finds; a lingering connection only
    /// drains what comes.
    func channelReceived(_ bytes: UnsafeRawBufferPointer) {
        guard machine.phase == .open else { return }
        if preface != nil {
            switch preface!.feed(bytes) {
            case .undecided:
                return
            case .http2(let held):
                preface = nil
                startHTTP2(earlyBytes: held)
                return
            case .http1(let held):
                preface = nil
                held.withUnsafeBytes { feed($0) }
                return
            }
        }
        feed(bytes)
    }

    private func feed(_ bytes: UnsafeRawBufferPointer) {
        enqueue(parser.feed(bytes))
        // RFC 9110 §7.8: what follows a request to switch protocols may not be HTTP; the
        // parser holds it, and reading waits until the server has answered.
        if parser.isAwaitingUpgrade || pending.count >= context.configuration.maxPipelinedRequests {
            channel.suspendReading()
        }
    }

    func channelFinishedReading() {
        processPending()
    }

    /// The client sent FIN. A stream ends at once (EventSource never half-closes); queued
    /// requests are still answered, then the connection closes.
    func channelPeerClosed() {
        // A streamed body cut short: its reader must not take it for a whole one.
        requestBody?.abort()
        requestBody = nil
        apply(machine.peerDidClose(streaming: current?.writer != nil))
    }

    /// Every queued byte is written: the response completes, or the close that waited for
    /// the writes goes on.
    func channelDrained() {
        if current?.producing == false {
            completeCurrent()
        } else {
            apply(machine.writesDrained(responseInFlight: current != nil, at: .now))
        }
    }

    func channelFailed(_ reason: StreamEndReason, reset: Bool) {
        if reason == .slowReader {
            context.logger.info(
                "disconnecting slow reader",
                metadata: ["connection": "\(id)", "unsent": "\(channel.outbound.unsentBytes)"])
        }
        close(reason: reason, reset: reset)
    }

    // MARK: HTTP/2

    /// The connection began with the HTTP/2 preface: an `HTTP2Connection` takes the socket
    /// over, with the bytes read so far and the timer.
    private func startHTTP2(earlyBytes: [UInt8]) {
        #if canImport(CNghttp2)
        let connection = HTTP2Connection(
            id: id, channel: channel, timer: timer, context: context, peerHost: peerHost
        ) { [weak self] reason in self?.http2Closed(reason) }
        http2 = connection
        connection.start(earlyBytes: earlyBytes)
        #endif
    }

    /// The HTTP/2 connection that took the socket over has closed: the server hears of it.
    private func http2Closed(_ reason: StreamEndReason) {
        _ = machine.close(reason)
        timer.cancel()
        context.onClosed(id)
    }
}
