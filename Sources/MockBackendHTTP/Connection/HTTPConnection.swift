import Dispatch
import Logging
import MockBackendSupport

/// What every connection of one server shares.
struct ConnectionContext: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let statistics: LockedValue<ServerStatistics>
    /// Called once, on the connection's queue, when the connection has closed.
    let onClosed: @Sendable (UInt64) -> Void
}

/// One client connection: reads requests, answers them in order, writes responses through
/// an optional shaper, and enforces the timeouts and bounds of `HTTPServerConfiguration`.
///
/// Invariant: every mutable property is touched only on `queue`, the serial event loop the
/// connection belongs to (shared with other connections). Dispatch sources deliver their
/// events on it, `ResponseBodyWriter` and `SinkGroup` hop onto it, and the server
/// reaches in only through `queue.async`. That confinement is what makes the
/// `@unchecked Sendable` sound. Because the loop is serial, one block on it may touch every
/// connection of that loop in turn: a broadcast writes to all of them in a single block.
/// There is deliberately no per-connection queue targeting the loop: a block on the loop
/// would not count as running on such a queue, and blocks queued on it could be passed by
/// blocks queued on the loop directly, reordering a stream's writes.
final class HTTPConnection: @unchecked Sendable {
    /// Where the connection is in its life.
    enum Lifecycle {
        /// Reading and answering requests.
        case open
        /// The last response is queued; close once it is written.
        case closingAfterWrites
        /// Write side shut down; draining input until EOF or the linger timeout.
        case lingering
        /// Closed; sources cancelled. Nothing happens any more.
        case closed
    }

    /// Which timeout is armed.
    enum DeadlinePhase {
        case none, header, body, idle, linger
        /// Upgraded to WebSocket: nothing received for `WebSocketConfiguration.idleTimeout`.
        case webSocketIdle
        /// Upgraded to WebSocket and closing: `WebSocketConfiguration.closeTimeout`.
        case webSocketClosing
    }

    /// The response being written.
    struct ResponseInFlight {
        var request: HTTPRequest
        var status: Int
        var keepAlive: Bool
        var chunked: Bool
        var shaper: (any ResponseShaper)?
        /// The stream's writer; nil for a body known in full.
        var writer: ResponseBodyWriter?
        /// Whether a stream may still write.
        var producing: Bool
        /// Compresses a gzip stream's writes, each flushed on its own.
        var deflater: GzipDeflater?
        /// Why a stream stopped producing (its end is queued); nil while it produces and
        /// for a body known in full.
        var endReason: StreamEndReason?
        var startedAt: ContinuousClock.Instant
    }

    /// A parsed request waiting its turn, or the parse failure that ends the connection.
    enum Pending {
        case request(HTTPRequest)
        case failure(HTTPParseError)
    }

    let id: UInt64
    let queue: DispatchQueue
    let stream: any ByteStream
    let context: ConnectionContext

    /// A stream whose bytes go out as they are: no shaper, no compression.
    struct PlainStream {
        /// The producing writer (alive while this is set: `current` holds it).
        let writer: ObjectIdentifier
        let chunked: Bool
    }

    // The properties every request or stream write touches skip Swift's dynamic
    // exclusivity check, which cost a tenth of a broadcast's instructions and a few
    // percent of a request's: they are confined to the loop (see above), and no access to
    // them spans a call that could reach them again (`parser.feed` and the other mutating
    // calls on them run no connection code). `current` keeps the check: producers' writes
    // reach it from inside calls that open it.
    @exclusivity(unchecked) var parser: HTTPRequestParser
    @exclusivity(unchecked) var pending: [Pending] = []
    var current: ResponseInFlight?
    /// The current response when it is a producing plain stream: kept in step with
    /// `current` (set when such a stream starts, cleared when it stops producing or the
    /// connection closes), so a write checks one field instead of opening `current`.
    @exclusivity(unchecked) var plainStream: PlainStream?
    @exclusivity(unchecked) var outbound = OutboundQueue()
    @exclusivity(unchecked) var lifecycle = Lifecycle.open
    /// Producers waiting for the unsent bytes to go down (`whenDrained`).
    var drainWaiters: [DrainWaiter] = []
    @exclusivity(unchecked) var isProcessing = false
    @exclusivity(unchecked) var peerClosed = false
    @exclusivity(unchecked) var stoppedReading = false
    @exclusivity(unchecked) var shuttingDown = false
    @exclusivity(unchecked) var servedRequests = 0

    /// Tells the connection when its socket can be read or written.
    let readiness: any SocketReadiness
    @exclusivity(unchecked) var readSuspended = false
    @exclusivity(unchecked) var writeArmed = false
    /// TLS only: a read that must write first waits for the socket to become writable,
    /// and a write that must read first waits for it to become readable.
    var readWaitsForWritable = false
    var writeWaitsForReadable = false
    let socketCloser: SocketCloser

    let deadlineTimer: DispatchSourceTimer
    @exclusivity(unchecked) var deadlinePhase = DeadlinePhase.none
    /// When the current phase times out; nil for none.
    @exclusivity(unchecked) var deadline: ContinuousClock.Instant?
    /// When the deadline timer is set to fire next; nil when it is not set.
    @exclusivity(unchecked) var timerFiresAt: ContinuousClock.Instant?
    var pauseTimer: DispatchSourceTimer?
    @exclusivity(unchecked) var isPausing = false
    /// Set by an `OutboundSegment.blackhole`: nothing is written or read again.
    var isBlackholed = false
    /// Set once the connection has switched to WebSocket (`HTTPConnection+WebSocket`);
    /// from then on input goes to its frame decoder, not to `parser`. Read by every
    /// WebSocket send, so unchecked like the stream fields above.
    @exclusivity(unchecked) var webSocket: WebSocketSession?
    /// Whether the WebSocket's response has a shaper: set at the switch, from `current`,
    /// whose shaper stays for as long as the connection is open. A send checks this field
    /// instead of copying the shaper out of `current`.
    @exclusivity(unchecked) var webSocketShaped = false

    /// - Parameter eventLoop: the loop this connection runs on; many connections share one,
    ///   so a thread drains the events of several connections in turn instead of waking
    ///   once per event.
    init(id: UInt64, stream: any ByteStream, context: ConnectionContext, eventLoop: EventLoop) {
        self.id = id
        self.stream = stream
        self.context = context
        queue = eventLoop.queue
        parser = HTTPRequestParser(limits: context.configuration.limits)
        readiness = eventLoop.makeReadiness(fileDescriptor: stream.fileDescriptor, statistics: context.statistics)
        deadlineTimer = DispatchSource.makeTimerSource(queue: queue)
        socketCloser = SocketCloser(stream: stream, statistics: context.statistics)
        context.statistics.withLock {
            $0.liveConnectionObjects += 1
            $0.openConnections += 1
            $0.openDescriptors += 1
            $0.acceptedConnections += 1
            $0.activeTimers += 1
        }
    }

    deinit {
        context.statistics.withLock { $0.liveConnectionObjects -= 1 }
    }

    /// Starts reading. Handlers capture `self` weakly so only the server's registry and
    /// in-flight writers keep a connection alive.
    func start() {
        queue.async { [self] in
            let statistics = context.statistics
            deadlineTimer.setEventHandler { [weak self] in self?.handleDeadline() }
            deadlineTimer.setCancelHandler { statistics.withLock { $0.activeTimers -= 1 } }
            deadlineTimer.schedule(deadline: .distantFuture)
            deadlineTimer.activate()
            let watching = readiness.activate(
                readable: { [weak self] in self?.handleReadable() },
                writable: { [weak self] in self?.handleWritable() })
            guard watching else {
                context.logger.warning(
                    "connection closed: its socket cannot be watched", metadata: ["connection": "\(id)"])
                close(reason: .connectionClosed)
                return
            }
            setDeadline(.header)
        }
    }

    func assertOnQueue() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }
}

/// Closes the socket once nothing watches it any more (`SocketReadiness.cancel`): closing
/// earlier would let the kernel reuse the number under a live watch. A Dispatch source's
/// cancel handler holds this object, not the connection, so the socket closes even after
/// the connection is gone. Confined to the connection's queue, where the closing runs.
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
