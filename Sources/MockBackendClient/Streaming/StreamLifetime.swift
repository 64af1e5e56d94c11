/// Stops the work behind a stream the module vends (`EventSource.events`,
/// `UserInfoStream.messages`, `WorkflowEventStream.messages`) once nobody can want it any
/// more, on whichever of these comes first:
/// - the stream's consumer went away: the task iterating it was cancelled, or the stream was
///   dropped before its end;
/// - the object that vends the stream was released. That object holds the only reference to
///   its lifetime, so the lifetime's `deinit` runs with the object's.
///
/// Invariant: nothing the work runs holds the vending object, only the work itself (an
/// `EventSourceDriver` never refers to its `EventSource`), or the object would outlive its
/// last user and keep its connection open. The stream's termination handler holds the work
/// weakly, so a stream never finished does not keep the work alive either.
final class StreamLifetime<Work: AnyObject & Sendable>: Sendable {
    /// The work, owned through this lifetime by the object that vends the stream.
    let work: Work
    private let stop: @Sendable (Work) -> Void

    /// - Parameters:
    ///   - work: what feeds `continuation`.
    ///   - continuation: the continuation of the stream vended; its termination handler is
    ///     set here.
    ///   - stop: stops `work` for good. It may be called twice (the consumer leaves, then the
    ///     object is released), so a second call must do nothing.
    init<Element, Failure>(
        of work: Work, feeding continuation: AsyncThrowingStream<Element, Failure>.Continuation,
        stop: @escaping @Sendable (Work) -> Void
    ) {
        self.work = work
        self.stop = stop
        continuation.stopsOnConsumerDeparture(work, stop)
    }

    deinit {
        stop(work)
    }
}

extension AsyncThrowingStream.Continuation {
    /// Calls `stop` with `work` when the consumer of the stream goes away: its task was
    /// cancelled, or it dropped the stream before the end. A finish is the work's own doing
    /// and stops nothing. `work` is held weakly. Replaces any termination handler set before.
    func stopsOnConsumerDeparture<Work: AnyObject & Sendable>(
        _ work: Work, _ stop: @escaping @Sendable (Work) -> Void
    ) {
        onTermination = { [weak work] termination in
            if case .cancelled = termination, let work { stop(work) }
        }
    }
}
