#if os(Linux)
import CEpoll
import Dispatch
import Glibc
import MockBackendSupport

/// One `epoll` instance and the thread that waits on it, for the connections of one event
/// loop (Linux).
///
/// The thread waits in `epoll_wait` and hands each batch of ready sockets to their
/// connections inside `queue.sync`. The batch runs on this thread, so a request costs no
/// hop to a Dispatch worker, yet it runs as a block of the loop's serial queue: it never
/// overlaps the other blocks queued there (broadcasts, timers, admin actions), and the
/// connections' confinement to their queue holds. Sockets are registered once,
/// edge-triggered, and never re-armed on the request path.
///
/// Invariant: `watchers` and `nextToken` are touched only on `queue`. The descriptors are
/// closed by the thread when it exits, after `stop()`.
final class EpollLoop: @unchecked Sendable {
    let queue: DispatchQueue
    private let epollFD: Int32
    /// An eventfd registered under token 0: a write to it wakes the thread to stop.
    private let wakeFD: Int32
    private var watchers: [UInt64: EpollReadiness] = [:]
    private var nextToken: UInt64 = 1
    private let stopping = LockedValue(false)
    private let statistics: LockedValue<ServerStatistics>
    /// Ready events taken from one `epoll_wait`.
    private static let batchSize: Int32 = 256

    /// Creates the epoll instance and starts its thread; nil when the system refuses one.
    init?(label: String, statistics: LockedValue<ServerStatistics>) {
        queue = DispatchQueue(label: label)
        self.statistics = statistics
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard epollFD >= 0, wakeFD >= 0 else {
            if epollFD >= 0 { _ = Glibc.close(epollFD) }
            if wakeFD >= 0 { _ = Glibc.close(wakeFD) }
            return nil
        }
        var event = epoll_event()
        event.events = mockbackend_epoll_in
        event.data.u64 = 0
        statistics.withLock { $0.loopThreads += 1 }
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0, startThread() else {
            statistics.withLock { $0.loopThreads -= 1 }
            _ = Glibc.close(epollFD)
            _ = Glibc.close(wakeFD)
            return nil
        }
    }

    /// Makes the thread exit after the batch in hand. Every socket must be unregistered
    /// by then. Later calls do nothing.
    func stop() {
        let first = stopping.withLock { flag in
            defer { flag = true }
            return !flag
        }
        guard first else { return }
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    /// Watches `fileDescriptor` for `watcher` (on `queue`); false when epoll refuses it.
    func register(_ watcher: EpollReadiness, fileDescriptor: Int32) -> UInt64? {
        dispatchPrecondition(condition: .onQueue(queue))
        let token = nextToken
        nextToken += 1
        var event = epoll_event()
        event.events = Self.socketEvents
        event.data.u64 = token
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fileDescriptor, &event) == 0 else { return nil }
        watchers[token] = watcher
        return token
    }

    /// Re-registers the socket with the same events: the kernel checks its readiness again
    /// and reports what is ready now, which an edge-triggered registration would not.
    func rearm(_ token: UInt64, fileDescriptor: Int32) {
        var event = epoll_event()
        event.events = Self.socketEvents
        event.data.u64 = token
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fileDescriptor, &event)
    }

    /// Stops watching (on `queue`); events of the socket still in a batch are dropped.
    func unregister(_ token: UInt64, fileDescriptor: Int32) {
        dispatchPrecondition(condition: .onQueue(queue))
        watchers[token] = nil
        var event = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fileDescriptor, &event)
    }

    /// Input, output and the peer's FIN, edge-triggered: each event is reported once per
    /// change, so a socket is never re-armed after it fired.
    private static let socketEvents =
        mockbackend_epoll_in | mockbackend_epoll_out | mockbackend_epoll_rdhup | mockbackend_epoll_et

    private func startThread() -> Bool {
        DetachedThread.start { [self] in run() }
    }

    private func run() {
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(Self.batchSize))
        defer {
            events.deallocate()
            _ = Glibc.close(epollFD)
            _ = Glibc.close(wakeFD)
            statistics.withLock { $0.loopThreads -= 1 }
        }
        while true {
            let count = epoll_wait(epollFD, events, Self.batchSize, -1)
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            var wake = false
            queue.sync {
                for index in 0..<Int(count) {
                    let token = events[index].data.u64
                    guard token != 0 else {
                        wake = true
                        continue
                    }
                    watchers[token]?.handle(events[index].events)
                }
            }
            if wake, stopping.current { return }
        }
    }
}
#endif
