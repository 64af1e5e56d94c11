import Dispatch
import MockBackendSupport

/// What a `SocketChannel` tells the protocol that owns it: an `HTTPConnection`, and after
/// an upgrade a `WebSocketConnection`. Called on the channel's queue.
protocol SocketChannelOwner: AnyObject {
    /// Bytes from the client. A blackholed channel reads only to notice the client leave,
    /// and hands nothing on.
    func channelReceived(_ bytes: UnsafeRawBufferPointer)
    /// A round of reads has ended, the channel still open: the owner answers what it has.
    func channelFinishedReading()
    /// The client sent FIN.
    func channelPeerClosed()
    /// Everything queued has been written and no pause holds anything back.
    func channelDrained()
    /// The channel cannot go on: the socket failed, a shaper ended it, a reader fell too
    /// far behind, the socket cannot be watched. The owner closes with `reason`, and the
    /// channel with it (`reset`: RST instead of FIN).
    func channelFailed(_ reason: StreamEndReason, reset: Bool)
    /// A read or write of the socket failed with `error` (nil when it is not a socket
    /// error): by default the client is taken to have gone (`channelFailed(.clientClosed)`).
    func channelBroke(_ error: SocketError?)
}

extension SocketChannelOwner {
    func channelBroke(_ error: SocketError?) {
        channelFailed(.clientClosed, reset: false)
    }
}

/// The socket side of one client connection, whatever protocol runs on it: reading as the
/// socket signals input, the outbound queue and its writes (shaped, paced, paused,
/// blackholed), TLS's reads that must write first and writes that must read first, waits
/// for the unsent bytes to go down, and the close. The protocol on top is its owner; an
/// upgrade hands the channel to a new owner, bytes and all.
///
/// Invariant: every property is touched only on `queue`, the serial event loop the
/// connection belongs to (shared with other connections); readiness handlers and timers
/// deliver their events there. That confinement is what makes the `@unchecked Sendable`
/// sound.
final class SocketChannel: @unchecked Sendable {
    let id: UInt64
    let queue: DispatchQueue
    let stream: any ByteStream
    let statistics: LockedValue<ServerStatistics>
    /// The bound on unsent stream bytes (`HTTPServerConfiguration.maxUnsentStreamBytes`).
    let maxUnsentBytes: Int
    weak var owner: (any SocketChannelOwner)?

    /// Tells the channel when its socket can be read or written.
    let readiness: any SocketReadiness
    let socketCloser: SocketCloser

    // The properties every write touches skip Swift's dynamic exclusivity check: they are
    // confined to the loop, and no access to them spans a call that could reach them again.
    @exclusivity(unchecked) var outbound = OutboundQueue()
    /// Shapes every write queued through `enqueue` (a response's, or a WebSocket's for as
    /// long as it lasts); nil sends bytes as they come.
    var shaper: (any ResponseShaper)?
    /// Where the stream events written count as delivered once their bytes leave.
    var deliveries: DeliveryTally?
    @exclusivity(unchecked) private(set) var isClosed = false
    @exclusivity(unchecked) var readSuspended = false
    /// Nothing more is read, for good: after a parse failure or end of stream.
    @exclusivity(unchecked) private(set) var stoppedReading = false
    @exclusivity(unchecked) var writeArmed = false
    /// TLS only: a read that must write first waits for the socket to become writable,
    /// and a write that must read first waits for it to become readable.
    var readWaitsForWritable = false
    var writeWaitsForReadable = false
    var pauseTimer: DispatchSourceTimer?
    @exclusivity(unchecked) var isPausing = false
    /// Set by an `OutboundSegment.blackhole`: nothing is written or handed on again.
    private(set) var isBlackholed = false
    /// Producers waiting for the unsent bytes to go down (`whenDrained`).
    var drainWaiters: [DrainWaiter] = []

    init(
        id: UInt64, stream: any ByteStream, eventLoop: EventLoop, statistics: LockedValue<ServerStatistics>,
        maxUnsentBytes: Int
    ) {
        self.id = id
        self.stream = stream
        self.statistics = statistics
        self.maxUnsentBytes = maxUnsentBytes
        queue = eventLoop.queue
        readiness = eventLoop.makeReadiness(fileDescriptor: stream.fileDescriptor, statistics: statistics)
        socketCloser = SocketCloser(stream: stream, statistics: statistics)
    }

    /// Starts watching the socket. False when it cannot be watched; the caller closes.
    func start() -> Bool {
        readiness.activate(
            readable: { [weak self] in self?.handleReadable() },
            writable: { [weak self] in self?.handleWritable() })
    }

    func assertOnQueue() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }

    /// Closes now: nothing more is read or written, the pause timer stops, drain waiters
    /// run, and the socket is closed by the readiness' cancel (RST with `reset`). Later
    /// calls do nothing.
    func close(reset: Bool = false) {
        assertOnQueue()
        guard !isClosed else { return }
        isClosed = true
        socketCloser.reset = reset
        outbound.removeAll()
        readSuspended = false
        writeArmed = false
        readiness.cancel(closing: socketCloser)
        pauseTimer?.cancel()
        pauseTimer = nil
        isPausing = false
        resumeDrainWaiters(progressed: false)
    }

    /// Sends FIN after what is written; reading goes on (a lingering close).
    func shutdownWrite() {
        stream.shutdownWrite()
    }

    /// Whether closing waits for the peer (FIN, then drain input) or happens at once.
    var lingersBeforeClose: Bool { stream.lingersBeforeClose }

    /// Whether the client has sent bytes not read yet: in the socket (peeked, so they stay
    /// there for the read) or held decrypted inside a TLS stream. For TLS the socket's
    /// bytes are record bytes: a request, or a message of TLS's own.
    var hasUnreadInput: Bool {
        stream.hasBufferedInput || Platform.hasUnreadBytes(stream.fileDescriptor)
    }

    /// Sends nothing and hands nothing on from now on, and keeps the socket open: the
    /// pause never ends, and later writes are dropped. What the client sends is still
    /// read, and thrown away, so that its FIN or RST is seen: a client that gives up is
    /// released, not left in CLOSE-WAIT holding a descriptor. Only a close ends it.
    func enterBlackhole() {
        outbound.removeAll()
        isPausing = true
        isBlackholed = true
        disarmWrite()
        if readSuspended, !stoppedReading { resumeReading() }
    }

    /// Stops reading for good: after a parse failure or EOF nothing more is read.
    func stopReading() {
        stoppedReading = true
        suspendReading()
    }
}

/// Closes the socket once nothing watches it any more (`SocketReadiness.cancel`): closing
/// earlier would let the kernel reuse the number under a live watch. A Dispatch source's
/// cancel handler holds this object, not the channel, so the socket closes even after the
/// channel is gone. Confined to the channel's queue, where the closing runs.
final class SocketCloser: @unchecked Sendable {
    private let stream: any ByteStream
    private let statistics: LockedValue<ServerStatistics>
    /// Whether the close sends RST instead of FIN.
    var reset = false

    init(stream: any ByteStream, statistics: LockedValue<ServerStatistics>) {
        self.stream = stream
        self.statistics = statistics
    }

    func close() {
        stream.close(reset: reset)
        statistics.withLock { $0.openDescriptors -= 1 }
    }
}
