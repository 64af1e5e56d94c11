import Dispatch
import MockBackendSupport

/// The one Dispatch timer of a connection: it fires at the instant its state machine last
/// asked for, on the connection's queue. The machine decides when (and skips re-arming
/// for a deadline that only moved later, which it finds when the timer fires); this only
/// waits. Rescheduling a Dispatch timer is a round trip through Dispatch's manager thread,
/// so it happens only when a machine asks. Confined to the connection's queue; an upgrade
/// hands it to the new protocol with the socket.
final class DeadlineTimer: @unchecked Sendable {
    private let source: DispatchSourceTimer
    /// What runs when it fires; replaced by the owner that takes the connection over.
    var handler: (() -> Void)?

    init(queue: DispatchQueue, statistics: LockedValue<ServerStatistics>) {
        source = DispatchSource.makeTimerSource(queue: queue)
        statistics.withLock { $0.activeTimers += 1 }
        source.setEventHandler { [weak self] in self?.handler?() }
        source.setCancelHandler { statistics.withLock { $0.activeTimers -= 1 } }
        source.schedule(deadline: .distantFuture)
        source.activate()
    }

    /// Fires once at `instant` (at once if it has passed), replacing any earlier schedule.
    func schedule(at instant: ContinuousClock.Instant) {
        let delay = max(.zero, instant - .now)
        source.schedule(deadline: .now() + DispatchDuration.interval(delay))
    }

    /// Fires no more until scheduled again.
    func disarm() {
        source.schedule(deadline: .distantFuture)
    }

    /// Stops for good.
    func cancel() {
        handler = nil
        source.cancel()
    }
}
