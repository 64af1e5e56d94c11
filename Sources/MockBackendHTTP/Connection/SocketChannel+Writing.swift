import Dispatch

extension SocketChannel {
    /// Largest write that stream bytes queued behind a slow socket are merged into.
    static let mergedWriteLimit = 64 * 1024

    /// Queues one write through the shaper, if there is one, with a mark after the
    /// segments that end its `events` stream events, unless the shaper marks them itself
    /// (`ResponseShaper.marksEvents`). Unshaped body bytes merge with those queued before.
    func enqueue(_ bytes: [UInt8], kind: ResponseWriteKind, events: Int = 0) {
        if var shaper {
            let segments = shaper.shape(bytes, kind: kind)
            self.shaper = shaper
            outbound.append(contentsOf: segments)
            if !shaper.marksEvents { outbound.append(.delivered(events: events)) }
        } else if kind == .body || kind == .message {
            outbound.appendMerging(bytes, limit: Self.mergedWriteLimit)
            outbound.append(.delivered(events: events))
        } else {
            outbound.append(.bytes(bytes))
        }
    }

    /// Queues stream bytes carrying `events` events and writes them, or, when the unsent
    /// bytes would pass the bound, tells the owner the reader fell too far behind. Without
    /// a shaper and with nothing queued before them, the bytes go straight to the socket.
    func writeStream(_ bytes: [UInt8], kind: ResponseWriteKind, events: Int) {
        if shaper == nil, outbound.isEmpty, !writeArmed, !isPausing {
            writeDirectly(bytes, events: events)
            return
        }
        if outbound.unsentBytes + bytes.count > maxUnsentBytes {
            owner?.channelFailed(.slowReader, reset: false)
            return
        }
        enqueue(bytes, kind: kind, events: events)
        flush()
    }

    /// Writes stream bytes that nothing is queued before: one system call, and only what the
    /// socket does not take now is queued (the common case of a broadcast to thousands of
    /// readers that keep up costs no queue operations at all). Their `events` are delivered
    /// once their last byte is written.
    private func writeDirectly(_ bytes: [UInt8], events: Int) {
        let result: IOResult
        let stream = stream  // a closure capturing `self` would retain the channel
        do {
            let write = { () throws -> IOResult in
                try bytes.withUnsafeBytes { buffer throws(SocketError) in try stream.write(buffer) }
            }
            if events > 0, let deliveries {
                // Counted with the write, under the tally's lock (`DeliveryTally.whileWriting`).
                result = try deliveries.whileWriting { tally in
                    let result = try write()
                    if result == .processed(bytes.count) { tally.noteDelivered(events) }
                    return result
                }
            } else {
                result = try write()
            }
        } catch {
            owner?.channelBroke(error as? SocketError)
            return
        }
        var written = 0
        if case .processed(let count) = result {
            if count == bytes.count { return }
            written = count
        }
        // The bound applies to what the socket did not take.
        if bytes.count - written > maxUnsentBytes {
            owner?.channelFailed(.slowReader, reset: false)
            return
        }
        outbound.appendMerging(Array(bytes[written...]), limit: Self.mergedWriteLimit)
        outbound.append(.delivered(events: events))
        flush()
    }

    /// Writes queued segments until the socket would block, a pause starts, or the queue
    /// is empty; then tells the owner it has drained. While the socket is known to be full
    /// (`writeArmed`) only the writable event flushes (`force`): trying earlier would cost
    /// a system call that returns EAGAIN.
    func flush(force: Bool = false) {
        assertOnQueue()
        if writeArmed, !force { return }
        let unsentBefore = outbound.unsentBytes
        defer {
            noteDeliveries()
            resumeDrainWaiters(progressed: outbound.unsentBytes < unsentBefore)
        }
        while !isClosed, !isPausing, let segment = outbound.front {
            switch segment {
            case .bytes(let bytes):
                let result: IOResult
                do {
                    result = try writeFront(bytes)
                } catch {
                    owner?.channelBroke(error as? SocketError)
                    return
                }
                switch result {
                case .processed:
                    break
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
                owner?.channelFailed(.cut, reset: reset)
                return
            case .http2(let ending):
                outbound.removeAll()
                owner?.channelFailed(.cut, reset: ending.resetsHTTP1)
                return
            case .delivered, .dropped:
                // Kept as marks, never as segments (`OutboundQueue.append`).
                outbound.popFront()
            }
        }
        guard !isClosed, !isPausing else { return }
        if !readWaitsForWritable { disarmWrite() }
        owner?.channelDrained()
    }

    /// Writes what is left of the front segment and consumes what the socket took; the
    /// events that completes are counted with the write, under the tally's lock
    /// (`DeliveryTally.whileWriting`).
    private func writeFront(_ bytes: [UInt8]) throws -> IOResult {
        let write = { [stream, offset = outbound.frontOffset] () throws -> IOResult in
            try bytes.withUnsafeBytes { buffer throws(SocketError) in
                try stream.write(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
            }
        }
        guard let deliveries else {
            let result = try write()
            if case .processed(let count) = result { outbound.consumeBytes(count) }
            return result
        }
        return try deliveries.whileWriting { tally in
            let result = try write()
            guard case .processed(let count) = result else { return result }
            outbound.consumeBytes(count)
            let due = outbound.takeDueMarks()
            tally.noteDelivered(due.delivered)
            tally.noteDropped(due.dropped)
            return result
        }
    }

    /// Counts the stream events whose last byte the socket has taken.
    private func noteDeliveries() {
        let due = outbound.takeDueMarks()
        guard due != OutboundQueue.Marks(), let deliveries else { return }
        deliveries.noteDelivered(due.delivered)
        deliveries.noteDropped(due.dropped)
    }

    func handleWritable() {
        if readWaitsForWritable {
            readWaitsForWritable = false
            handleReadable()
            guard !isClosed else { return }
        }
        flush(force: true)
    }

    /// Waits for the socket to take more bytes.
    func armWrite() {
        guard !writeArmed else { return }
        guard readiness.armWrite() else {
            owner?.channelFailed(.connectionClosed, reset: false)
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
    /// cancelled with the channel.
    private func startPause(milliseconds: Int) {
        isPausing = true
        let timer = pauseTimer ?? makePauseTimer()
        timer.schedule(deadline: .now() + .milliseconds(max(0, milliseconds)))
    }

    private func makePauseTimer() -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let statistics = statistics
        statistics.withLock { $0.activeTimers += 1 }
        timer.setEventHandler { [weak self] in
            guard let self, !isBlackholed else { return }
            isPausing = false
            flush()
        }
        timer.setCancelHandler { statistics.withLock { $0.activeTimers -= 1 } }
        timer.activate()
        pauseTimer = timer
        return timer
    }
}
