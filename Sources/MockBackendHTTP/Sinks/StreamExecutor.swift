import Dispatch
import MockBackendSupport

/// Where a stream sink's work runs, one piece at a time and in the order it was given: an
/// HTTP connection's event loop, or a test's manual executor. Sinks that name the same
/// executor are written in one piece of work (`SinkGroup`), so a broadcast to thousands of
/// connections of one loop costs one queued block, not one per connection.
public protocol StreamExecutor: AnyObject, Sendable {
    /// Runs `work` later, after every piece given before it.
    func execute(_ work: @escaping @Sendable () -> Void)
}

/// An executor that can also run work after a while: where a producer that waits for its
/// sinks runs its steps and counts its patience (`SinkGroup.whenDrained`, a flood). A
/// Dispatch queue in the server; a manual one, whose time moves when a test says, in tests.
public protocol StreamScheduler: StreamExecutor {
    /// Runs `work` once `delay` has passed.
    func execute(after delay: Duration, _ work: @escaping @Sendable () -> Void)
}

extension DispatchQueue: StreamScheduler {
    /// `async(execute:)`: a serial queue (an event loop) runs its work in order.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        async(execute: work)
    }

    /// `asyncAfter(deadline:execute:)`.
    public func execute(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        asyncAfter(deadline: .now() + DispatchDuration.interval(delay), execute: work)
    }
}
