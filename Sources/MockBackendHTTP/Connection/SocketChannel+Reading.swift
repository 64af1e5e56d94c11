extension SocketChannel {
    /// Bytes read per call; reads repeat until the socket would block or this many rounds.
    private static let readChunkSize = 16 * 1024
    private static let readRoundsPerEvent = 8

    func handleReadable() {
        assertOnQueue()
        guard !isClosed else { return }
        if writeWaitsForReadable {
            // A TLS write that needed input first can go on now.
            writeWaitsForReadable = false
            flush(force: true)
            guard !isClosed else { return }
        }
        var rounds = 0
        // Whether the last read found the socket empty; else input may wait that no new
        // event will announce (`SocketReadiness.readAgainLater`).
        var drained = false
        while rounds < Self.readRoundsPerEvent, !isClosed, !readSuspended {
            rounds += 1
            let result: IOResult
            do {
                result = try withUnsafeTemporaryAllocation(byteCount: Self.readChunkSize, alignment: 1) { buffer in
                    let outcome = try stream.read(into: buffer)
                    if case .processed(let count) = outcome, !stoppedReading, !isBlackholed {
                        owner?.channelReceived(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    }
                    return outcome
                }
            } catch {
                owner?.channelBroke(error as? SocketError)
                return
            }
            switch result {
            case .processed(let count):
                // A short read means the socket is drained: reading again would only
                // return EAGAIN, a wasted system call per request. Unless the client has
                // also closed its side: its FIN may have come with these bytes, and no new
                // event would announce it.
                if count < Self.readChunkSize, stream.shortReadDrainsSocket, !stream.hasBufferedInput,
                    !readiness.peerHungUp
                {
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
                owner?.channelPeerClosed()
                return
            }
        }
        if !drained, !isClosed, !readSuspended, !stream.hasBufferedInput { readiness.readAgainLater() }
        readBufferedInputLater()
        guard !isClosed else { return }
        owner?.channelFinishedReading()
    }

    /// Input a TLS stream decrypted but did not return yet makes no socket event: read it
    /// on a later turn of the queue, after the requests in hand are answered.
    private func readBufferedInputLater() {
        guard !isClosed, !readSuspended, stream.hasBufferedInput else { return }
        queue.async { [weak self] in self?.handleReadable() }
    }

    func suspendReading() {
        guard !readSuspended, !isClosed else { return }
        readSuspended = true
        readiness.suspendReading()
    }

    /// Reads again after `suspendReading`; after `stopReading` only with `evenIfStopped`
    /// (a lingering close drains what the client still sends).
    func resumeReading(evenIfStopped: Bool = false) {
        guard readSuspended, !stoppedReading || evenIfStopped, !isClosed else { return }
        readSuspended = false
        readiness.resumeReading()
        readBufferedInputLater()
    }

    /// Lets the read source fire even while reading is paused, for a TLS write that waits
    /// for input. Bytes read after `stopReading()` are not handed on.
    func resumeReadingForWrite() {
        guard readSuspended, !isClosed else { return }
        readSuspended = false
        readiness.resumeReading()
    }
}
