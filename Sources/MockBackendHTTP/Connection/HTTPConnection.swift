import Dispatch
import Logging
import MockBackendSupport

/// What every connection of one server shares.
struct ConnectionContext: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let statistics: LockedValue<ServerStatistics>
    /// `http` or `https`, the listener's transport (`HTTPRequest.scheme`).
    var scheme = "http"
    /// Called once, on the connection's queue, when the connection has closed.
    let onClosed: @Sendable (UInt64) -> Void
    /// A new id from the connections' sequence, for an HTTP/2 stream.
    var newExchangeID: @Sendable () -> UInt64 = { 0 }
    /// HTTP/2 streams began (a positive change) or ended on the connection: they count
    /// towards the server's fan-out as connections do (`MemoryTrimPolicy`).
    var http2StreamsChanged: @Sendable (Int) -> Void = { _ in }
}

/// One client connection speaking HTTP/1.1: reads requests, answers them in order, hands
/// a stream's producer its writer, and switches to WebSocket when a response says so. Its
/// socket is a `SocketChannel`; its timeouts, reading and closing are decided by an
/// `HTTPConnectionStateMachine`, whose steps this class carries out.
///
/// Invariant: every mutable property is touched only on `queue`, the serial event loop the
/// connection belongs to (shared with other connections). Readiness handlers and the timer
/// deliver their events on it, `ResponseBodyWriter` and `SinkGroup` hop onto it, and the
/// server reaches in only through `queue.async`. That confinement is what makes the
/// `@unchecked Sendable` sound. Because the loop is serial, one block on it may touch every
/// connection of that loop in turn: a broadcast writes to all of them in a single block.
/// There is deliberately no per-connection queue targeting the loop: a block on the loop
/// would not count as running on such a queue, and blocks queued on it could be passed by
/// blocks queued on the loop directly, reordering a stream's writes.
final class HTTPConnection: SocketChannelOwner, @unchecked Sendable {
    /// The response being written.
    struct ResponseInFlight {
        var request: HTTPRequest
        var status: Int
        var keepAlive: Bool
        var chunked: Bool
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

    typealias Machine = HTTPConnectionStateMachine<ContinuousClock>

    let id: UInt64
    let queue: DispatchQueue
    let channel: SocketChannel
    let context: ConnectionContext
    let timer: DeadlineTimer

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
    @exclusivity(unchecked) var machine: Machine
    @exclusivity(unchecked) var isProcessing = false
    /// The client's address without its port, read once (`HTTPRequest.remoteAddress`).
    lazy var peerHost: String? = PeerAddress.host(of: channel.stream.fileDescriptor)
    /// The deferred response the request in flight waits for, until it is known.
    var awaiting: DeferredResponse?
    /// After the switch to WebSocket: the connection that took the socket over.
    var upgraded: WebSocketConnection?
    /// The streamed body being read (`HTTPParserEvent.streamingRequest`), until its end.
    var requestBody: RequestBodyStream?
    /// At the start of a connection that may be HTTP/2: the first bytes, until they tell.
    var preface: HTTP2Preface?
    #if canImport(CNghttp2)
    /// After the HTTP/2 preface: the connection that took the socket over.
    var http2: HTTP2Connection?
    #endif

    /// - Parameter eventLoop: the loop this connection runs on; many connections share one,
    ///   so a thread drains the events of several connections in turn instead of waking
    ///   once per event.
    init(id: UInt64, stream: any ByteStream, context: ConnectionContext, eventLoop: EventLoop) {
        self.id = id
        self.context = context
        queue = eventLoop.queue
        let configuration = context.configuration
        channel = SocketChannel(
            id: id, stream: stream, eventLoop: eventLoop, statistics: context.statistics,
            maxUnsentBytes: configuration.maxUnsentStreamBytes)
        timer = DeadlineTimer(queue: queue, statistics: context.statistics)
        parser = HTTPRequestParser(limits: configuration.limits)
        parser.streamsBody = { [responder = context.responder] in responder.streamsBody(of: $0) }
        if configuration.http2, HTTP2Support.isAvailable { preface = HTTP2Preface() }
        machine = Machine(
            timeouts: .init(
                header: configuration.headerTimeout, body: configuration.bodyTimeout,
                idle: configuration.idleTimeout, linger: configuration.lingerTimeout),
            lingers: stream.lingersBeforeClose)
        context.statistics.withLock {
            $0.liveConnectionObjects += 1
            $0.openDescriptors += 1
            $0.acceptedConnections += 1
        }
    }

    deinit {
        context.statistics.withLock { $0.liveConnectionObjects -= 1 }
    }

    /// Starts reading. Handlers capture `self` weakly so only the server's registry and
    /// in-flight writers keep a connection alive.
    func start() {
        queue.async { [self] in
            channel.owner = self
            timer.handler = { [weak self] in self?.handleTimer() }
            guard channel.start() else {
                context.logger.warning(
                    "connection closed: its socket cannot be watched", metadata: ["connection": "\(id)"])
                close(reason: .connectionClosed)
                return
            }
            apply(machine.start(at: .now))
        }
    }

    func assertOnQueue() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }
}
