extension HTTPConnection {
    /// Bytes read per call; reads repeat until the socket would block or this many rounds.
    private static let readChunkSize = 16 * 1024
    private static let readRoundsPerEvent = 8

    func handleReadable() {
        assertOnQueue()
        guard lifecycle != .closed else { return }
        if writeWaitsForReadable {
            // A TLS write that needed input first can go on now.
            writeWaitsForReadable = false
            flush(force: true)
            guard lifecycle != .closed else { return }
        }
        var rounds = 0
        // Whether the last read found the socket empty; else input may wait that no new
        // event will announce (`SocketReadiness.readAgainLater`).
        var drained = false
        while rounds < Self.readRoundsPerEvent, lifecycle != .closed, !readSuspended {
            rounds += 1
            let result: IOResult
            do {
                result = try withUnsafeTemporaryAllocation(byteCount: Self.readChunkSize, alignment: 1) { buffer in
                    let outcome = try stream.read(into: buffer)
                    if case .processed(let count) = outcome, lifecycle != .lingering {
                        receive(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    }
                    return outcome
                }
            } catch {
                close(reason: .clientClosed)
                return
            }
            switch result {
            case .processed(let count):
                // A short read means the socket is drained: reading again would only
                // return EAGAIN, a wasted system call per request.
                if count < Self.readChunkSize, stream.shortReadDrainsSocket, !stream.hasBufferedInput {
                    drained = true
                    rounds = Self.readRoundsPerEvent
                }
            case .wouldBlock(let direction):
                if direction == .write {
                    // TLS: the read must send something first (a handshake message).
                    readWaitsForWritable = true
                    armWrite()
                }
                drained = true
                rounds = Self.readRoundsPerEvent
            case .endOfStream:
                peerDidClose()
                return
            }
        }
        if !drained, lifecycle != .closed, !readSuspended, !stream.hasBufferedInput { readiness.readAgainLater() }
        readBufferedInputLater()
        processPending()
    }

    /// Input a TLS stream decrypted but did not return yet makes no socket event: read it
    /// on a later turn of the queue, after the requests in hand are answered.
    private func readBufferedInputLater() {
        guard lifecycle != .closed, !readSuspended, stream.hasBufferedInput else { return }
        queue.async { [weak self] in self?.handleReadable() }
    }

    /// Feeds bytes to the parser and queues what it finds; after an upgrade to WebSocket,
    /// to the frame decoder instead.
    private func receive(_ bytes: UnsafeRawBufferPointer) {
        // A blackholed connection reads only to notice its client leave (`enterBlackhole`).
        guard !stoppedReading, !isBlackholed else { return }
        if webSocket != nil {
            receiveWebSocket(bytes)
            return
        }
        enqueue(parser.feed(bytes))
        // RFC 9110 §7.8: what follows a request to switch protocols may not be HTTP; the
        // parser holds it, and reading waits until the server has answered.
        if parser.isAwaitingUpgrade || pending.count >= context.configuration.maxPipelinedRequests {
            suspendReading()
        }
    }

    /// Queues parsed requests and failures in order, answering `Expect: 100-continue`.
    func enqueue(_ events: [HTTPParserEvent]) {
        for event in events {
            switch event {
            case .continueExpected:
                // RFC 9110 §10.1.1: send 100 only when it is next on the wire; with
                // responses still ahead of it the client's own timer sends the body.
                if current == nil, pending.isEmpty, lifecycle == .open {
                    outbound.append(.bytes(HTTPResponseEncoder.continueHead))
                    flush()
                }
            case .request(var request):
                request.connectionID = id
                pending.append(.request(request))
            case .failure(let error):
                pending.append(.failure(error))
                stopReading()
            }
        }
    }

    /// The client sent FIN. A stream ends at once (EventSource never half-closes); queued
    /// requests are still answered, then the connection closes.
    private func peerDidClose() {
        peerClosed = true
        if webSocket != nil, lifecycle == .open {
            webSocketPeerDidClose()
            return
        }
        if lifecycle == .lingering || current?.writer != nil {
            close(reason: .clientClosed)
            return
        }
        stopReading()
        processPending()
    }

    /// Stops reading for good: after a parse failure or EOF nothing more is read.
    func stopReading() {
        stoppedReading = true
        suspendReading()
    }

    func suspendReading() {
        guard !readSuspended, lifecycle != .closed else { return }
        readSuspended = true
        readiness.suspendReading()
    }

    func resumeReading() {
        guard readSuspended, !stoppedReading || lifecycle == .lingering, lifecycle != .closed else { return }
        readSuspended = false
        readiness.resumeReading()
        readBufferedInputLater()
    }

    /// Lets the read source fire even while reading is paused, for a TLS write that waits
    /// for input. Bytes read after `stopReading()` are dropped by `receive`.
    func resumeReadingForWrite() {
        guard readSuspended, lifecycle != .closed else { return }
        readSuspended = false
        readiness.resumeReading()
    }
}
