import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport
import ServerSentEvents

/// One proxied request's answer on its way from the upstream to the client, never
/// buffered: the head is answered as soon as it arrives (`DeferredResponse`), the body
/// relayed as it is read — an event stream event by event, through a `proxy/<path>` stream
/// of the mock, anything else as it comes. The client's pace holds the upstream back
/// (`UpstreamExchange.pause`), within `highWater` bytes not yet taken by the client's
/// socket. A client that leaves ends the upstream request; an upstream that ends — cleanly,
/// with FIN, or with RST — ends the client's response the same way.
///
/// Upstream callbacks come on the upstream loop, the sink from the client's; what they
/// share is under one lock.
final class ProxiedResponse: UpstreamResponseHandler, Sendable {
    /// Unacknowledged body bytes after which reading the upstream waits for the client.
    static let highWater = 256 * 1024
    /// What the client's socket may still hold when reading the upstream goes on.
    static let lowWater = 64 * 1024

    private enum Mode {
        case plain
        /// An event stream, relayed block by block through a `proxy/<path>` stream (set when
        /// the client's side is ready).
        case events(EventStream?, SSEBlockSplitter)
    }

    /// A 401 or 403 as it came.
    private typealias Refusal = (status: Int, headers: HTTPHeaders, body: [UInt8])

    private struct State {
        var sink: (any StreamSink)?
        var mode = Mode.plain
        /// Body bytes read before the client's side was ready for them, in order.
        var early: [[UInt8]] = []
        /// The upstream's end, when it came before the client's side was ready.
        var pendingEnd: UpstreamEnding?
        /// Whether upstream bytes go to the client as they come. False until `attach` has
        /// set the client's side up and written every early byte: until then they queue in
        /// `early`, so nothing overtakes what came before it.
        var ready = false
        var headArrived = false
        var upstreamDone = false
        /// Bytes written to the sink since the client last caught up.
        var unacknowledged = 0
        var waitingForClient = false
        /// A 401 or 403's body, kept for the session overlay.
        var refusal: Refusal?
        var record: StreamConnectionRecord?
    }

    let deferred: DeferredResponse
    let request: HTTPRequest
    let context: ProxyContext
    /// The session token the request carries, if any.
    let token: String?
    let upstream: UpstreamOrigin
    private let exchangeBox = LockedValue<UpstreamExchange?>(nil)
    private let state = LockedValue(State())

    init(
        deferred: DeferredResponse, request: HTTPRequest, context: ProxyContext, token: String?,
        upstream: UpstreamOrigin
    ) {
        self.deferred = deferred
        self.request = request
        self.context = context
        self.token = token
        self.upstream = upstream
    }

    /// The exchange, once sent; the client's departure cancels it.
    var exchange: UpstreamExchange? {
        get { exchangeBox.current }
        set { exchangeBox.withLock { $0 = newValue } }
    }

    // MARK: Upstream

    func upstreamReceivedHead(_ head: HTTPResponseHead, of exchange: UpstreamExchange) {
        let latency = ContinuousClock.now - exchange.startedAt
        let headers = ProxyHeaders.clientResponse(head)
        let isEventStream =
            request.method == "GET" && head.status == 200 && head.headers["Content-Encoding"] == nil
            && (head.headers["Content-Type"]?.lowercased().hasPrefix("text/event-stream") ?? false)
        let refusal = head.status == 401 || head.status == 403
        state.withLock { state in
            state.headArrived = true
            if refusal { state.refusal = (head.status, headers, []) }
            if isEventStream { state.mode = .events(nil, SSEBlockSplitter()) }
        }
        // Nothing more is read until the client's side is ready for it.
        exchange.pause()
        let started = StartGuard(exchange: exchange)
        var response = HTTPResponse(
            status: head.status, headers: headers,
            body: .stream { [self] sink in
                started.started = true
                attach(sink)
            })
        if !isEventStream, head.status != 204, let length = Self.contentLength(of: head) {
            response.declaredLength = length
        }
        response.relay = RelayedAnswer(upstreamStatus: head.status, latency: latency)
        deferred.complete(with: response)
    }

    func upstreamReceivedBody(_ bytes: [UInt8], of exchange: UpstreamExchange) {
        let sink: (any StreamSink)? = state.withLock { state in
            if var refusal = state.refusal, refusal.body.count < ProxySessions.maxKeptBody {
                refusal.body += bytes.prefix(ProxySessions.maxKeptBody - refusal.body.count)
                state.refusal = refusal
            }
            guard state.ready, let sink = state.sink else {
                state.early.append(bytes)
                return nil
            }
            return sink
        }
        if let sink { deliver(bytes, to: sink) }
    }

    func upstreamEnded(_ ending: UpstreamEnding, of exchange: UpstreamExchange) {
        let (headArrived, sink, refusal) = state.withLock { state -> (Bool, (any StreamSink)?, Refusal?) in
            state.upstreamDone = true
            guard state.ready else {
                state.pendingEnd = ending
                return (state.headArrived, nil, state.refusal)
            }
            return (state.headArrived, state.sink, state.refusal)
        }
        if let refusal, ending == .complete {
            context.sessions.noteRefusal(status: refusal.status, headers: refusal.headers, body: refusal.body)
        }
        guard headArrived else {
            guard case .failed(let failure) = ending else { return }
            var response = Self.problem(for: failure, upstream: upstream)
            response.relay = RelayedAnswer(upstreamStatus: nil, latency: .now - exchange.startedAt)
            deferred.complete(with: response)
            return
        }
        if let sink { end(sink, with: ending) }
    }

    // MARK: Client

    /// The client's response body is ready: what came early goes first, then reading the
    /// upstream goes on.
    private func attach(_ sink: any StreamSink) {
        let isEventStream = state.withLock { state in
            state.sink = sink
            if case .events = state.mode { return true }
            return false
        }
        if isEventStream {
            let connection = sink.connectionID
            let token = token
            let (stream, record) = context.streams.withRelayStream(named: Self.streamName(of: request)) { stream in
                let record = stream.attachRelay(
                    sink, request: context.redaction.redacting(request),
                    lastEventID: SSEEndpoint.lastEventID(of: request), events: context.events
                ) { [weak self, context] in
                    if let token { context.sessions.streamClosed(token: token, connection: connection) }
                    context.streams.removeIfUnused(named: stream.name)
                    self?.clientLeft()
                }
                return (stream, record)
            }
            state.withLock { state in
                state.record = record
                if case .events(_, let splitter) = state.mode { state.mode = .events(stream, splitter) }
            }
            if let token, !context.sessions.streamOpened(token: token, stream: stream, connection: connection) {
                // Expired between the request and now: ended as its other streams were.
                stream.endRelay(of: connection, with: nil, cause: .sessionExpired)
            }
        } else {
            sink.onEnd { [weak self] _ in self?.clientLeft() }
        }
        // What came early, in order, until none is left; only then do upstream bytes go
        // straight to the client.
        while true {
            let (early, pendingEnd, done) = state.withLock { state -> ([[UInt8]], UpstreamEnding?, Bool) in
                guard state.early.isEmpty else {
                    defer { state.early = [] }
                    return (state.early, nil, false)
                }
                state.ready = true
                return ([], state.pendingEnd, true)
            }
            for bytes in early { deliver(bytes, to: sink) }
            guard done else { continue }
            if let pendingEnd {
                end(sink, with: pendingEnd)
            } else {
                exchange?.resume()
            }
            return
        }
    }

    /// Writes upstream bytes to the client, and holds the upstream back when the client
    /// falls behind.
    private func deliver(_ bytes: [UInt8], to sink: any StreamSink) {
        let (blocks, stream, hold) = state.withLock { state -> ([SSEBlock], EventStream?, Bool) in
            var blocks: [SSEBlock] = []
            var stream: EventStream?
            if case .events(let relayed, var splitter) = state.mode {
                blocks = splitter.feed(bytes)
                state.mode = .events(relayed, splitter)
                stream = relayed
            }
            state.unacknowledged += bytes.count
            guard state.unacknowledged > Self.highWater, !state.waitingForClient else { return (blocks, stream, false) }
            state.waitingForClient = true
            return (blocks, stream, true)
        }
        if let stream {
            for block in blocks { stream.relay(block, toConnection: sink.connectionID) }
        } else {
            sink.write(bytes)
        }
        guard hold else { return }
        exchange?.pause()
        sink.whenDrained(toAtMost: Self.lowWater) { [weak self] in
            guard let self else { return }
            state.withLock { state in
                state.unacknowledged = 0
                state.waitingForClient = false
            }
            exchange?.resume()
        }
    }

    /// Ends the client's response as the upstream's ended.
    private func end(_ sink: any StreamSink, with ending: UpstreamEnding) {
        let (record, remainder) = state.withLock { state -> (StreamConnectionRecord?, [UInt8]) in
            guard case .events(let stream, var splitter) = state.mode else { return (state.record, []) }
            let remainder = splitter.takeRemainder()
            state.mode = .events(stream, splitter)
            return (state.record, remainder)
        }
        // An unfinished last block goes as it came: the client's parser decides about it.
        if !remainder.isEmpty { sink.write(remainder) }
        switch ending {
        case .complete:
            record?.noteEnding(.finished)
            sink.finish()
        case .failed(let failure):
            sink.nameEnd(StreamEndCause.upstreamClosed.rawValue)
            record?.noteEnding(.upstreamClosed)
            sink.abort(reset: failure == .reset)
        }
    }

    /// The client's response ended: an upstream still sending is told to stop.
    private func clientLeft() {
        let done = state.withLock(\.upstreamDone)
        if !done { exchange?.cancel() }
    }

    // MARK: Helpers

    /// `proxy/<path>`: the name a proxied stream is listed under.
    static func streamName(of request: HTTPRequest) -> String {
        EventStream.relayPrefix + (request.path.hasPrefix("/") ? request.path.dropFirst() : request.path[...])
    }

    static func contentLength(of head: HTTPResponseHead) -> Int? {
        guard head.headers["Transfer-Encoding"] == nil, let text = head.headers["Content-Length"] else { return nil }
        return Int(text.trimmingSpaces())
    }

    /// The answer when the upstream gave none.
    static func problem(for failure: UpstreamFailure, upstream: UpstreamOrigin) -> HTTPResponse {
        switch failure {
        case .unreachable(let why):
            ProblemDetails(
                status: 502, code: "UPSTREAM_UNAVAILABLE", detail: "The upstream \(upstream) cannot be reached: \(why)."
            )
            .response
        case .timedOut:
            ProblemDetails(
                status: 504, code: "UPSTREAM_TIMEOUT",
                detail: "The upstream \(upstream) sent no response head within the proxy timeout."
            )
            .response
        case .badResponse(let error):
            ProblemDetails(status: 502, code: "UPSTREAM_BAD_RESPONSE", detail: error.detail).response
        case .closed, .reset:
            ProblemDetails(
                status: 502, code: "UPSTREAM_BAD_RESPONSE",
                detail: "The upstream \(upstream) closed the connection without answering."
            )
            .response
        }
    }
}

/// Cancels the upstream exchange when a response's body is dropped without ever being
/// produced (a fault answered in its place): deinit runs when the last copy of the
/// response is gone.
private final class StartGuard: @unchecked Sendable {
    private let exchange: UpstreamExchange
    /// Set once, on the client's loop, before the guard can be released.
    var started = false

    init(exchange: UpstreamExchange) {
        self.exchange = exchange
    }

    deinit {
        if !started { exchange.cancel() }
    }
}
