import Dispatch

extension HTTPConnection {
    /// Writes queued segments until the socket would block, a pause starts, or the queue
    /// is empty; then completes the response or the close that waited for the writes.
    /// While the socket is known to be full (`writeArmed`) only the writable event
    /// flushes (`force`): trying earlier would cost a system call that returns EAGAIN.
    func flush(force: Bool = false) {
        assertOnQueue()
        if writeArmed, !force { return }
        let unsentBefore = outbound.unsentBytes
        defer {
            noteDeliveries()
            resumeDrainWaiters(progressed: outbound.unsentBytes < unsentBefore)
        }
        while lifecycle != .closed, !isPausing, let segment = outbound.front {
            switch segment {
            case .bytes(let bytes):
                let result: IOResult
                do {
                    result = try bytes.withUnsafeBytes { buffer throws(SocketError) in
                        try stream.write(UnsafeRawBufferPointer(rebasing: buffer[outbound.frontOffset...]))
                    }
                } catch {
                    close(reason: .clientClosed)
                    return
                }
                switch result {
                case .processed(let count):
                    outbound.consumeBytes(count)
                case .wouldBlock(.read):
                    // TLS: the write needs input first; the read handler flushes again.
                    writeWaitsForReadable = true
                    resumeReadingForWrite()
                    return
                case .wouldBlock(.write), .endOfStream:
                    armWrite()
                    return
                }
            case .paced:
                outbound.expandPacedFront()
            case .blackhole:
                enterBlackhole()
                return
            case .pause(let milliseconds):
                outbound.popFront()
                // A write source left armed would fire again and again while nothing may be sent.
                disarmWrite()
                startPause(milliseconds: milliseconds)
                return
            case .close(let reset):
                outbound.removeAll()
                close(reason: .cut, reset: reset)
                return
            case .delivered, .dropped:
                // Kept as marks, never as segments (`OutboundQueue.append`).
                outbound.popFront()
            }
        }
        guard lifecycle != .closed, !isPausing else { return }
        if !readWaitsForWritable { disarmWrite() }
        if current?.producing == false {
            completeCurrent()
        } else if lifecycle == .closingAfterWrites, current == nil {
            beginLinger()
        }
    }

    /// Counts the stream events whose last byte the socket has taken.
    private func noteDeliveries() {
        let due = outbound.takeDueMarks()
        guard due != OutboundQueue.Marks(), let tally = streamDeliveries else { return }
        tally.noteDelivered(due.delivered)
        tally.noteDropped(due.dropped)
    }

    /// Sends nothing and answers nothing from now on, and keeps the socket open: the pause
    /// never ends, and later writes are dropped. What the client sends is still read, and
    /// thrown away (`receive`), so that its FIN or RST is seen: a client that gives up is
    /// released, not left in CLOSE-WAIT holding a descriptor. Only a close ends it.
    private func enterBlackhole() {
        outbound.removeAll()
        isPausing = true
        isBlackholed = true
        disarmWrite()
    }

    func handleWritable() {
        if readWaitsForWritable {
            readWaitsForWritable = false
            handleReadable()
            guard lifecycle != .closed else { return }
        }
        flush(force: true)
    }

    /// Waits for the socket to take more bytes.
    func armWrite() {
        guard !writeArmed else { return }
        guard readiness.armWrite() else {
            close(reason: .connectionClosed)
            return
        }
        writeArmed = true
    }

    func disarmWrite() {
        guard writeArmed else { return }
        writeArmed = false
        readiness.disarmWrite()
    }

    /// Holds every later segment back for a while; the timer is created on first use and
    /// cancelled with the connection.
    private func startPause(milliseconds: Int) {
        isPausing = true
        let timer = pauseTimer ?? makePauseTimer()
        timer.schedule(deadline: .now() + .milliseconds(max(0, milliseconds)))
    }

    private func makePauseTimer() -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let statistics = context.statistics
        statistics.withLock { $0.activeTimers += 1 }
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            isPausing = false
            flush()
        }
        timer.setCancelHandler { statistics.withLock { $0.activeTimers -= 1 } }
        timer.activate()
        pauseTimer = timer
        return timer
    }
}
