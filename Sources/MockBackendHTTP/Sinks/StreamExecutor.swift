import Dispatch

/// Where a stream sink's work runs, one piece at a time and in the order it was given: an
/// HTTP connection's event loop, or a test's manual executor. Sinks that name the same
/// executor are written in one piece of work (`SinkGroup`), so a broadcast to thousands of
/// connections of one loop costs one queued block, not one per connection.
public protocol StreamExecutor: AnyObject, Sendable {
    /// Runs `work` later, after every piece given before it.
    func execute(_ work: @escaping @Sendable () -> Void)
}

extension DispatchQueue: StreamExecutor {
    /// `async(execute:)`: a serial queue (an event loop) runs its work in order.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        async(execute: work)
    }
}
