import Dispatch
import MockBackendSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to an upstream server, carrying one exchange at a time and kept for the
/// next when the response allows it (HTTP/1.1 keep-alive). Its socket is a `SocketChannel`,
/// as a client connection's is: reads as the socket signals, queued writes, TLS's reads
/// that must write first.
///
/// Invariant: every property is touched only on `queue`, the upstream client's event loop;
/// that confinement is what makes the `@unchecked Sendable` sound.
final class UpstreamConnection: SocketChannelOwner, @unchecked Sendable {
    enum Phase: Equatable {
        /// Sending a request, or waiting for its response's head.
        case awaitingHead
        /// Reading a response body.
        case readingBody
        /// Switched protocols (101): bytes pass both ways as they are until either side ends.
        case tunnel
        /// In the pool, waiting for the next exchange.
        case idle
        case closed
    }

    let id: UInt64
    let server: UpstreamOrigin
    let queue: DispatchQueue
    let channel: SocketChannel
    private let timer: DeadlineTimer
    private let settings: UpstreamClientSettings
    private var parser = HTTPResponseParser()
    private(set) var exchange: UpstreamExchange?
    private(set) var phase = Phase.idle
    /// Whether any byte of the current exchange's answer has arrived.
    private(set) var receivedAnything = false
    /// Exchanges carried before the current one: a reused connection that fails before any
    /// byte of its answer may have been closed by the upstream meanwhile, and the request
    /// may be sent again on a new one.
    private(set) var exchangesCarried = 0
    /// The current exchange's streamed body while parts of it are still to send.
    private var sendingBody: RequestBodyStream?
    /// Whether a taken part of `sendingBody` waits in the channel: the next is taken once
    /// it has gone (the upstream's pace).
    private var bodyPartInFlight = false
    /// Hears when the connection is idle again or closed (the pool).
    var onIdle: ((UpstreamConnection) -> Void)?
    var onClosed: ((UpstreamConnection) -> Void)?
    /// Hears of a failure before any byte of the first answer, so the client can try the
    /// request again elsewhere (another address, a new connection) instead of failing it.
    var onEarlyFailure: ((UpstreamConnection, UpstreamExchange, UpstreamFailure) -> Void)?

    init(
        id: UInt64, server: UpstreamOrigin, stream: any ByteStream, eventLoop: EventLoop,
        statistics: LockedValue<ServerStatistics>, settings: UpstreamClientSettings
    ) {
        self.id = id
        self.server = server
        self.settings = settings
        queue = eventLoop.queue
        channel = SocketChannel(
            id: id, stream: stream, eventLoop: eventLoop, statistics: statistics, maxUnsentBytes: Int.max)
        timer = DeadlineTimer(queue: queue, statistics: statistics)
        statistics.withLock {
            $0.openConnections += 1
            $0.openDescriptors += 1
            $0.acceptedConnections += 1
        }
        self.statistics = statistics
    }

    private let statistics: LockedValue<ServerStatistics>

    /// Starts watching the socket; false when it cannot be watched (then it is closed).
    func start() -> Bool {
        channel.owner = self
        timer.handler = { [weak self] in self?.timerFired() }
        guard channel.start() else {
            close()
            return false
        }
        return true
    }

    /// Sends `exchange`'s request and waits for its answer, the head within the timeout.
    ///
    /// Invariant: the head timeout counts the upstream's time only. While a streamed body
    /// waits for the client's next part the timer is disarmed, and each part handed to the
    /// upstream arms it afresh: a slow upload is the client's pace, not a silent upstream,
    /// while an upstream that stops taking the body, or that sends no head once the body
    /// is whole, still times out.
    func send(_ exchange: UpstreamExchange) {
        guard phase != .closed else { return }
        self.exchange = exchange
        exchange.connection = self
        phase = .awaitingHead
        receivedAnything = false
        parser = HTTPResponseParser(requestWasHead: exchange.request.method == "HEAD")
        timer.schedule(at: .now + settings.headTimeout)
        channel.resumeReading()
        sendingBody = exchange.request.bodyStream
        // A streamed body's first part is taken once the head has gone (`channelDrained`):
        // until the connection is up, a failed connect may still try another address.
        bodyPartInFlight = sendingBody != nil
        channel.enqueue(exchange.request.encoded, kind: .head)
        channel.flush()
    }

    /// Sends the streamed body's next parts, or waits for them.
    private func sendBody() {
        guard let body = sendingBody, !bodyPartInFlight, phase == .awaitingHead || phase == .readingBody else {
            return
        }
        let chunked = body.declaredLength == nil
        guard let part = body.next() else {
            // The client's turn: its pace does not count against the upstream.
            if phase == .awaitingHead { timer.disarm() }
            body.whenReadable { [weak self, queue] in queue.async { [weak self] in self?.sendBody() } }
            return
        }
        switch part {
        case .bytes(let bytes):
            bodyPartInFlight = true
            upstreamsTurn()
            channel.enqueue(chunked ? HTTPResponseEncoder.chunk(bytes) : bytes, kind: .body)
        case .end:
            sendingBody = nil
            upstreamsTurn()
            if chunked { channel.enqueue(HTTPResponseEncoder.lastChunk, kind: .body) }
        case .aborted:
            // The client left mid-body: the upstream must not take what came for all of it.
            sendingBody = nil
            fail(.reset, early: false)
            return
        }
        channel.flush()
    }

    /// A body part goes up, or the body has ended: until the head arrives, the upstream's
    /// time runs again from now.
    private func upstreamsTurn() {
        if phase == .awaitingHead { timer.schedule(at: .now + settings.headTimeout) }
    }

    // MARK: The caller

    func exchangeCancelled(_ cancelled: UpstreamExchange) {
        guard exchange === cancelled else { return }
        exchange = nil
        close()
    }

    func pauseReading(for paused: UpstreamExchange) {
        guard exchange === paused, phase == .readingBody || phase == .tunnel else { return }
        channel.suspendReading()
    }

    func resumeReading(for resumed: UpstreamExchange) {
        guard exchange === resumed, phase == .readingBody || phase == .tunnel else { return }
        channel.resumeReading()
    }

    func tunnelWrite(_ bytes: [UInt8], for writer: UpstreamExchange) {
        guard exchange === writer, phase == .tunnel, !bytes.isEmpty else { return }
        channel.enqueue(bytes, kind: .body)
        channel.flush()
    }

    func tunnelCloseWrite(for writer: UpstreamExchange) {
        guard exchange === writer, phase == .tunnel else { return }
        channel.shutdownWrite()
    }

    // MARK: The channel

    func channelReceived(_ bytes: UnsafeRawBufferPointer) {
        if phase == .tunnel {
            if let exchange { exchange.handler?.upstreamReceivedBody(Array(bytes), of: exchange) }
            return
        }
        guard phase == .awaitingHead || phase == .readingBody else {
            // An idle connection that speaks unasked is out of step: it is not reused.
            if phase == .idle { close() }
            return
        }
        receivedAnything = true
        handle(parser.feed(bytes))
    }

    func channelFinishedReading() {}

    func channelPeerClosed() {
        switch phase {
        case .idle:
            close()
        case .awaitingHead where !receivedAnything:
            fail(.badResponse(.truncated), early: true)
        case .awaitingHead, .readingBody:
            handle(parser.finish())
        case .tunnel:
            // The upstream ended its side: the tunnel is over.
            let ended = exchange
            exchange = nil
            close()
            ended?.end(.complete)
        case .closed:
            break
        }
    }

    func channelDrained() {
        guard sendingBody != nil else { return }
        bodyPartInFlight = false
        sendBody()
    }

    func channelFailed(_ reason: StreamEndReason, reset: Bool) {
        channelBroke(nil)
    }

    func channelBroke(_ error: SocketError?) {
        let code = error?.code ?? 0
        switch phase {
        case .idle, .closed:
            close()
        case .awaitingHead where !parser.hasHead:
            let detail = error?.description ?? "the connection failed"
            fail(.unreachable(detail), early: !receivedAnything)
        case .awaitingHead where !receivedAnything && exchangesCarried > 0:
            // A kept connection the upstream closed meanwhile: worth another try.
            fail(.closed, early: true)
        case .awaitingHead, .readingBody, .tunnel:
            fail(code == ECONNRESET ? .reset : .closed, early: false)
        }
    }

    // MARK: Parsing

    private func handle(_ events: [HTTPResponseParserEvent]) {
        for event in events {
            guard let exchange, phase != .closed else { return }
            switch event {
            case .head(let head):
                if head.status == 101 {
                    guard exchange.request.asksToSwitchProtocols else {
                        fail(
                            .badResponse(.malformedHead("101 Switching Protocols to a request that did not ask")),
                            early: false)
                        return
                    }
                    // From here on, bytes pass both ways as they are.
                    phase = .tunnel
                    timer.disarm()
                    keepAlive = false
                    exchange.handler?.upstreamReceivedHead(head, of: exchange)
                    let early = parser.takeBytesAfterUpgrade()
                    if !early.isEmpty { exchange.handler?.upstreamReceivedBody(early, of: exchange) }
                    if exchange.paused { channel.suspendReading() }
                    return
                }
                // A body has no deadline.
                phase = .readingBody
                timer.disarm()
                keepAlive = head.keepsAlive && !Self.asksToClose(exchange.request)
                exchange.handler?.upstreamReceivedHead(head, of: exchange)
                if exchange.paused { channel.suspendReading() }
            case .body(let bytes):
                exchange.handler?.upstreamReceivedBody(bytes, of: exchange)
            case .end:
                self.exchange = nil
                exchangesCarried += 1
                if let body = sendingBody {
                    // Answered before the whole body was sent: the rest is not wanted, and
                    // the upstream still expects it, so the connection is not reused.
                    sendingBody = nil
                    body.cancel()
                    keepAlive = false
                }
                exchange.end(.complete)
                if keepAlive, !exchange.cancelled {
                    phase = .idle
                    timer.schedule(at: .now + settings.idleTimeout)
                    onIdle?(self)
                } else {
                    close()
                }
                return
            case .failure(let error):
                fail(error == .truncated && parser.hasHead ? .closed : .badResponse(error), early: false)
                return
            }
        }
    }

    /// Whether the response may leave the connection open for another request.
    private var keepAlive = false

    private static func asksToClose(_ request: UpstreamRequest) -> Bool {
        request.headers.listContains("Connection", token: "close")
    }

    private func timerFired() {
        switch phase {
        case .awaitingHead: fail(.timedOut, early: false)
        case .idle: close()
        case .readingBody, .tunnel, .closed: break
        }
    }

    /// Ends the exchange with `failure` and closes. A failure before any byte of the answer
    /// goes to `onEarlyFailure` instead, when one is set, to be tried again elsewhere.
    private func fail(_ failure: UpstreamFailure, early: Bool) {
        let failed = exchange
        exchange = nil
        close(reset: failure == .reset)
        guard let failed else { return }
        // A body begun upstream cannot be sent again.
        if early, let onEarlyFailure, failed.request.bodyStream?.isStarted != true {
            onEarlyFailure(self, failed, failure)
        } else {
            failed.end(.failed(failure))
        }
    }

    /// Closes the socket once; the pool and any exchange hear of it.
    func close(reset: Bool = false) {
        guard phase != .closed else { return }
        phase = .closed
        channel.close(reset: reset)
        timer.cancel()
        // The body's client side lets go of it when its response ends; a request that
        // fails before its body began may still go out on another connection.
        sendingBody = nil
        statistics.withLock { $0.openConnections -= 1 }
        if let exchange {
            self.exchange = nil
            exchange.end(.failed(.closed))
        }
        onClosed?(self)
        onIdle = nil
        onClosed = nil
        onEarlyFailure = nil
    }
}
