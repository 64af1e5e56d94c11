import Dispatch
import MockBackendSupport

/// A serial queue that runs the connections assigned to it, and what watches their
/// sockets (`ReadinessMechanism`).
struct EventLoop: Sendable {
    let queue: DispatchQueue
    #if os(Linux)
    /// The loop's epoll thread; nil with Dispatch sources.
    let epoll: EpollLoop?
    #endif

    /// A loop named `label`; falls back to Dispatch sources when epoll is unavailable. An
    /// epoll loop counts its thread in `statistics` (`ServerStatistics.loopThreads`).
    init(
        label: String, mechanism: ReadinessMechanism,
        statistics: LockedValue<ServerStatistics> = LockedValue(ServerStatistics())
    ) {
        #if os(Linux)
        if mechanism == .epoll, let epoll = EpollLoop(label: label, statistics: statistics) {
            self.epoll = epoll
            queue = epoll.queue
            return
        }
        epoll = nil
        #endif
        queue = DispatchQueue(label: label)
    }

    /// What watches a new connection's socket.
    func makeReadiness(fileDescriptor: Int32, statistics: LockedValue<ServerStatistics>) -> any SocketReadiness {
        #if os(Linux)
        if let epoll { return EpollReadiness(loop: epoll, fileDescriptor: fileDescriptor) }
        #endif
        return DispatchSourceReadiness(fileDescriptor: fileDescriptor, queue: queue, statistics: statistics)
    }

    /// Ends the loop's thread, if it has one; its connections must all have closed.
    func stop() {
        #if os(Linux)
        epoll?.stop()
        #endif
    }
}
