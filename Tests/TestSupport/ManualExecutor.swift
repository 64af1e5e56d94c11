import MockBackendHTTP
import MockBackendSupport

/// An executor that runs nothing until told: work waits, in order, until `run()`. A stream
/// tested with sinks on it does everything a connection's event loop would, in a order the
/// test decides, on the test's own thread.
public final class ManualExecutor: StreamExecutor {
    private let pending = LockedValue<[@Sendable () -> Void]>([])

    public init() {}

    public func execute(_ work: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(work) }
    }

    /// How many pieces of work wait.
    public var pendingCount: Int { pending.withLock { $0.count } }

    /// Runs the work given so far, and the work that work gives, until none is left.
    /// Returns how many pieces ran.
    @discardableResult
    public func run() -> Int {
        var ran = 0
        while true {
            let batch = pending.withLock { pending in
                defer { pending = [] }
                return pending
            }
            guard !batch.isEmpty else { return ran }
            for work in batch { work() }
            ran += batch.count
        }
    }
}
