extension SocketChannel {
    /// Someone waiting for this connection's unsent bytes to fall to `threshold` or below.
    struct DrainWaiter {
        let threshold: Int
        /// Called when the socket took some of the bytes but not yet enough.
        let progress: @Sendable () -> Void
        let resume: @Sendable () -> Void
    }

    /// Runs `resume` once the bytes queued on this connection (not yet taken by the socket)
    /// are at most `threshold`, or once the connection has closed: at once if they already
    /// are, else from the `flush` that gets them there; until then `progress` runs after
    /// each flush that got some bytes out. The way a producer goes at its reader's pace
    /// instead of queuing everything at once.
    func whenDrained(
        toAtMost threshold: Int, progress: @escaping @Sendable () -> Void, _ resume: @escaping @Sendable () -> Void
    ) {
        assertOnQueue()
        if isClosed || outbound.unsentBytes <= threshold {
            resume()
        } else {
            drainWaiters.append(DrainWaiter(threshold: threshold, progress: progress, resume: resume))
        }
    }

    /// Resumes the waiters whose threshold the queue is down to (all of them once closed);
    /// tells the others when the queue went down (`progressed`).
    func resumeDrainWaiters(progressed: Bool) {
        guard !drainWaiters.isEmpty else { return }
        let unsent = isClosed ? 0 : outbound.unsentBytes
        var ready: [DrainWaiter] = []
        drainWaiters.removeAll { waiter in
            guard unsent <= waiter.threshold else { return false }
            ready.append(waiter)
            return true
        }
        for waiter in ready { waiter.resume() }
        if progressed {
            for waiter in drainWaiters { waiter.progress() }
        }
    }
}
