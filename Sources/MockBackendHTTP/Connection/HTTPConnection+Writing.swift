import Dispatch

extension HTTPConnection {
    /// Writes queued segments until the socket would block, a pause starts, or the queue
    /// is empty; then completes the response or the close that waited for the writes.
    func flush() {
        assertOnQueue()
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
                case .wouldBlock, .endOfStream:
                    armWrite()
                    return
                }
            case .pause(let milliseconds):
                outbound.popFront()
                startPause(milliseconds: milliseconds)
                return
            case .close(let reset):
                outbound.removeAll()
                close(reason: .cut, reset: reset)
                return
            }
        }
        guard lifecycle != .closed, !isPausing else { return }
        disarmWrite()
        if let flight = current, !flight.producing {
            completeCurrent()
        } else if lifecycle == .closingAfterWrites, current == nil {
            beginLinger()
        }
    }

    func handleWritable() {
        flush()
    }

    func armWrite() {
        guard !writeArmed else { return }
        writeArmed = true
        writeSource.resume()
    }

    func disarmWrite() {
        guard writeArmed else { return }
        writeArmed = false
        writeSource.suspend()
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
