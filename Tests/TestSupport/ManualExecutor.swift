import MockBackendHTTP
import MockBackendSupport

/// An executor that runs nothing until told: work waits, in order, until `run()`; work
/// given a delay waits until `advance(by:)` moves this executor's own time past it. A
/// stream tested with sinks on it does everything a connection's event loop (and a
/// flood's queue, and its patience) would, in an order the test decides, on the test's own
/// thread.
public final class ManualExecutor: StreamScheduler {
    private struct Timed {
        let due: Duration
        let order: Int
        let work: @Sendable () -> Void
    }

    private struct State {
        var pending: [@Sendable () -> Void] = []
        var timed: [Timed] = []
        var now = Duration.zero
        var nextOrder = 0
    }

    private let state = LockedValue(State())

    public init() {}

    public func execute(_ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.pending.append(work) }
    }

    public func execute(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.timed.append(Timed(due: state.now + max(delay, .zero), order: state.nextOrder, work: work))
            state.nextOrder += 1
        }
    }

    /// How many pieces of work wait to run now.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Runs the work given so far, and the work that work gives, until none is left.
    /// Returns how many pieces ran.
    @discardableResult
    public func run() -> Int {
        var ran = 0
        while true {
            let batch = state.withLock { state in
                defer { state.pending = [] }
                return state.pending
            }
            guard !batch.isEmpty else { return ran }
            for work in batch { work() }
            ran += batch.count
        }
    }

    /// Moves this executor's time forward by `duration`, running what is waiting and each
    /// delayed piece of work as its time comes, in due order.
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now + max(duration, .zero) }
        run()
        while true {
            let next = state.withLock { state -> Timed? in
                guard
                    let index = state.timed.indices.min(by: {
                        (state.timed[$0].due, state.timed[$0].order) < (state.timed[$1].due, state.timed[$1].order)
                    }), state.timed[index].due <= target
                else { return nil }
                let timed = state.timed.remove(at: index)
                state.now = max(state.now, timed.due)
                return timed
            }
            guard let next else { break }
            next.work()
            run()
        }
        state.withLock { $0.now = target }
    }
}
