import MockBackendSupport

/// How tracking ends, and what is stopped when it does.
extension JobTracker {
    /// How tracking ends.
    enum Ending {
        case outcome(JobOutcome<Kind.Summary>)
        case failure(any Error)
        case cancelled
    }

    /// Ends tracking, once: reports the end, stops what runs, answers every `outcome` waiter.
    func end(_ ending: Ending) {
        let (cleanup, waiters) = shared.withLock { shared -> (Cleanup, [Waiter]) in
            guard !shared.machine.phase.isTerminal else { return (Cleanup(), []) }
            let input: JobTrackingStateMachine.Input
            switch ending {
            case .outcome(let outcome):
                shared.outcome = outcome
                sink.yield(.finished(outcome))
                sink.finish()
                input = .finished
            case .failure(let error):
                shared.error = error
                sink.finish(throwing: error)
                input = .failed
            case .cancelled:
                sink.finish()
                input = .cancel
            }
            defer { shared.waiters = [:] }
            return (perform(shared.machine.handle(input), &shared), Array(shared.waiters.values))
        }
        cleanup.run()
        for waiter in waiters {
            switch ending {
            case .outcome(let outcome): waiter.resume(returning: outcome)
            case .failure(let error): waiter.resume(throwing: error)
            case .cancelled: waiter.resume(throwing: CancellationError())
            }
        }
    }

    /// What a halt leaves to stop once the tracker's lock is released.
    struct Cleanup {
        var source: EventSource?
        var task: Task<Void, Never>?

        func run() {
            source?.stop()
            task?.cancel()
        }
    }
}

/// The time passed on `clock` since now, each time the result is called.
func startStopwatch<C: Clock<Duration>>(on clock: C) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
}
