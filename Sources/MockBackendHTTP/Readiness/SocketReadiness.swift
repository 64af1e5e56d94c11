/// Tells a connection when its socket can be read or written: the seam between
/// `HTTPConnection` and the mechanism that watches sockets (`DispatchSourceReadiness`
/// everywhere, `EpollReadiness` on Linux by default).
///
/// Confined to the connection's queue: every method is called there, and the handlers
/// given to `activate` run there. The connection keeps its own flags (`readSuspended`,
/// `writeArmed`) and calls each method only when its state changes, so an implementation
/// never sees two suspends or two arms in a row.
protocol SocketReadiness: AnyObject {
    /// Starts watching. `readable` runs when input (or end of stream) may be waiting,
    /// `writable` when the socket may take more bytes while writing is armed. Either may
    /// run when nothing is ready after all: the handlers find that out by reading or writing.
    /// Returns false when the socket cannot be watched (the system's limit on watched
    /// descriptors); the connection then closes.
    func activate(readable: @escaping () -> Void, writable: @escaping () -> Void) -> Bool
    /// Whether the socket reported that the peer closed its side (an edge that came with the
    /// last bytes): a short read then does not mean the socket is drained, the end of stream
    /// still waits to be read. False where the mechanism signals the end on its own.
    var peerHungUp: Bool { get }
    /// Stops delivering `readable` until `resumeReading`.
    func suspendReading()
    /// Delivers `readable` again, at once if input waits.
    func resumeReading()
    /// The last read stopped while input may still wait (a bounded read loop ended):
    /// deliver `readable` again on a later turn even if no new byte arrives.
    func readAgainLater()
    /// Delivers `writable` when the socket takes bytes, at once if it does now. Returns
    /// false when watching for it cannot start (no descriptor left).
    func armWrite() -> Bool
    /// Stops delivering `writable`.
    func disarmWrite()
    /// Stops watching for good and then closes the socket with `closer`, once no handler can
    /// run any more (so the kernel cannot hand the descriptor's number to another socket
    /// while something still watches it).
    func cancel(closing closer: SocketCloser)
}

/// Which mechanism watches a server's sockets (`HTTPServerConfiguration.readiness`).
public enum ReadinessMechanism: Sendable, Equatable {
    /// A Dispatch read source per connection, and a write source while it waits to write.
    /// Available everywhere; on Darwin the kernel queue behind them is re-armed in place.
    case dispatchSources
    /// One `epoll` instance per event loop, watched by its own thread, with every socket
    /// registered once, edge-triggered (Linux only). Spares each request the trip through
    /// Dispatch's manager thread that re-arms a source on Linux (two thread switches and
    /// an `epoll_ctl`). Blocks still run on the loop's Dispatch queue.
    case epoll

    /// `epoll` on Linux, Dispatch sources elsewhere.
    public static var platformDefault: ReadinessMechanism {
        #if os(Linux)
        .epoll
        #else
        .dispatchSources
        #endif
    }
}
