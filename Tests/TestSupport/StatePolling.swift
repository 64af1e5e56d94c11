import MockBackendTesting

/// How the clients without a socket to wait on (`InMemoryStream`, `HTTP2StreamClient`)
/// wait: they look at the state they are told of every 5 ms until it answers.
enum StatePolling {
    /// Calls `attempt` until it returns a value, which is returned, or until `timeout`
    /// (scaled by `TestTiming`) passes or the task is cancelled: then nil. What `attempt`
    /// throws ends the wait.
    static func poll<Value>(timeout: Duration, _ attempt: () throws -> Value?) async rethrows -> Value? {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while true {
            if let value = try attempt() { return value }
            guard ContinuousClock.now < deadline else { return nil }
            // Timers on a real clock (a job's progress) and the h2 connection's own thread
            // write meanwhile.
            try? await Task.sleep(for: .milliseconds(5))
            // A cancelled task's sleep returns at once: end the wait rather than spin.
            if Task.isCancelled { return nil }
        }
    }
}
