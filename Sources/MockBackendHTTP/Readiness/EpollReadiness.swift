#if os(Linux)
import CEpoll

/// Readiness from an `EpollLoop`: the socket is registered once, edge-triggered, so a
/// request costs no re-arming. What an edge does not report is asked for by re-arming
/// (`EpollLoop.rearm`): input left after a bounded read loop, input that arrived while
/// reading was suspended, and a socket that became writable before writing was armed.
///
/// Confined to the connection's queue, like the connection.
final class EpollReadiness: SocketReadiness {
    private let loop: EpollLoop
    private let fileDescriptor: Int32
    private var token: UInt64?
    private var readable: (() -> Void)?
    private var writable: (() -> Void)?
    private var readSuspended = false
    private var writeArmed = false
    /// Set by an event with `EPOLLRDHUP` or `EPOLLHUP`: with edge triggering no later event
    /// announces the end of stream that follows the bytes it came with.
    private(set) var peerHungUp = false

    init(loop: EpollLoop, fileDescriptor: Int32) {
        self.loop = loop
        self.fileDescriptor = fileDescriptor
    }

    func activate(readable: @escaping () -> Void, writable: @escaping () -> Void) -> Bool {
        self.readable = readable
        self.writable = writable
        token = loop.register(self, fileDescriptor: fileDescriptor)
        return token != nil
    }

    /// One event from the loop. Either handler may close the connection (and cancel this).
    func handle(_ events: UInt32) {
        let input = mockbackend_epoll_in | mockbackend_epoll_rdhup | mockbackend_epoll_hup | mockbackend_epoll_err
        let output = mockbackend_epoll_out | mockbackend_epoll_hup | mockbackend_epoll_err
        if events & (mockbackend_epoll_rdhup | mockbackend_epoll_hup) != 0 { peerHungUp = true }
        if events & input != 0, !readSuspended { readable?() }
        if events & output != 0, writeArmed, token != nil { writable?() }
    }

    func suspendReading() {
        readSuspended = true
    }

    func resumeReading() {
        readSuspended = false
        // Input that came while suspended made its edge then; ask again.
        rearm()
    }

    func readAgainLater() {
        rearm()
    }

    func armWrite() -> Bool {
        writeArmed = true
        rearm()
        return true
    }

    func disarmWrite() {
        writeArmed = false
    }

    func cancel(closing closer: SocketCloser) {
        if let token { loop.unregister(token, fileDescriptor: fileDescriptor) }
        token = nil
        readable = nil
        writable = nil
        closer.close()
    }

    private func rearm() {
        guard let token else { return }
        loop.rearm(token, fileDescriptor: fileDescriptor)
    }
}
#endif
