import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `suspend()`, `resume()` and `reconnectNow()`, and the waits of the loop that they cut
/// short.
extension EventSourceDriver {
    func suspend() { change(.suspend) }

    func resume() { change(.resume) }

    func reconnectNow() { change(.reconnectNow) }

    /// Feeds a lifecycle input; when the machine takes it, interrupts the loop: the request
    /// in flight is cancelled and a waiting loop woken, to ask the machine what now.
    private func change(_ input: ReconnectionStateMachine.Input) {
        let (task, sleeper, waiter, changed) = shared.withLock {
            shared -> (URLSessionDataTask?, Task<Void, Never>?, CheckedContinuation<Void, Never>?, EventSourceState?) in
            let before = shared.machine.state
            guard shared.machine.handle(input) != .none else { return (nil, nil, nil, nil) }
            let after = shared.machine.state
            if before != after { broadcaster.publish(after) }
            // Bumped under the lock the loop's reports take, so each report is judged
            // against the state it was made in.
            shared.generation &+= 1
            defer { shared.waiter = nil }
            return (shared.task, shared.sleeper, shared.waiter, before != after ? after : nil)
        }
        task?.cancel()
        sleeper?.cancel()
        waiter?.resume()
        if let changed { log(changed) }
    }

    /// Returns once the generation is no longer `generation`, or the task is cancelled.
    func waitForChange(from generation: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = shared.withLock { shared in
                    // Checked under the lock the cancellation handler takes too, so a
                    // cancellation is seen here or finds the waiter there.
                    if Task.isCancelled || shared.generation != generation { return true }
                    shared.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = shared.withLock { shared in
                defer { shared.waiter = nil }
                return shared.waiter
            }
            waiter?.resume()
        }
    }

    /// Sleeps `delay` on the clock, or less when the generation changes first: the sleep
    /// runs as a task of its own that a lifecycle change cancels.
    func sleep(for delay: Duration, unlessChangedFrom generation: UInt64) async {
        let sleeper = Task { [clock] in _ = try? await clock.sleep(for: delay, tolerance: nil) }
        let current = shared.withLock { shared in
            guard shared.generation == generation else { return false }
            shared.sleeper = sleeper
            return true
        }
        if !current { sleeper.cancel() }
        await withTaskCancellationHandler {
            await sleeper.value
        } onCancel: {
            sleeper.cancel()
        }
        shared.withLock { if $0.sleeper == sleeper { $0.sleeper = nil } }
    }
}
