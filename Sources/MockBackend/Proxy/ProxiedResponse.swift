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

    private struct State {
        var sink: (any StreamSink)?
        /// For an event stream: cuts the upstream's bytes into blocks (changed in place, so
        /// a partial block is never copied).
        var splitter: SSEBlockSplitter?
        /// The `proxy/<path>` stream an event stream is relayed through, once the client's
        /// side is ready.
        var relayStream: EventStream?
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
        /// A 401 or 403 as it came, kept for the session overlay.
        var refusal: ProxySessions.Answer?
        var record: StreamConnectionRecord?
    }

    let deferred: DeferredResponse
    let request: HTTPRequest
    let context: ProxyContext
    /// The session token the request carries, if any.
    let token: String?
    let upstream: UpstreamOrigin
    /// Where the exchange is recorded while a recording runs (`ProxyRecorder`).
    let tape: RecordedExchange?
    private let exchangeBox = LockedValue<UpstreamExchange?>(nil)
    private let state = LockedValue(State())

    init(
        deferred: DeferredResponse, request: HTTPRequest, context: ProxyContext, token: String?,
        upstream: UpstreamOrigin, tape: RecordedExchange? = nil
    ) {
        self.deferred = deferred
        self.request = request
        self.context = context
        self.token = token
        self.upstream = upstream
        self.tape = tape
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
        tape?.noteHead(status: head.status, headers: head.headers, kind: isEventStream ? .eventStream : .plain)
        state.withLock { state in
            state.headArrived = true
            if refusal { state.refusal = ProxySessions.Answer(status: head.status, headers: headers, body: []) }
            if isEventStream { state.splitter = SSEBlockSplitter() }
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
        tape?.noteBody(bytes)
        let delivery = state.withLock { state -> Delivery? in
            if let kept = state.refusal?.body.count, kept < ProxySessions.maxKeptBody {
                state.refusal?.body += bytes.prefix(ProxySessions.maxKeptBody - kept)
            }
            guard state.ready else {
                state.early.append(bytes)
                return nil
            }
            return Self.prepare(bytes, in: &state)
        }
        if let delivery { write(delivery) }
    }

    func upstreamEnded(_ ending: UpstreamEnding, of exchange: UpstreamExchange) {
        tape?.noteEnding(RecordedExchange.Ending(ending))
        let (headArrived, sink, refusal) = state.withLock { state -> (Bool, (any StreamSink)?, ProxySessions.Answer?) in
            state.upstreamDone = true
            guard state.ready else {
                state.pendingEnd = ending
                return (state.headArrived, nil, state.refusal)
            }
            return (state.headArrived, state.sink, state.refusal)
        }
        if let refusal, ending == .complete {
            context.sessions.noteRefusal(refusal)
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
            return state.splitter != nil
        }
        if isEventStream {
            let (stream, record) = context.joinRelay(
                sink, request: request, lastEventID: SSEEndpoint.lastEventID(of: request), token: token
            ) { [weak self] in self?.clientLeft() }
            state.withLock { state in
                state.record = record
                state.relayStream = stream
            }
        } else {
            sink.onEnd { [weak self] _ in self?.clientLeft() }
        }
        // What came early, in order, until none is left; only then do upstream bytes go
        // straight to the client.
        while true {
            let (deliveries, pendingEnd, done) = state.withLock { state -> ([Delivery], UpstreamEnding?, Bool) in
                guard state.early.isEmpty else {
                    defer { state.early = [] }
                    return (state.early.compactMap { Self.prepare($0, in: &state) }, nil, false)
                }
                state.ready = true
                return ([], state.pendingEnd, true)
            }
            for delivery in deliveries { write(delivery) }
            guard done else { continue }
            if let pendingEnd {
                end(sink, with: pendingEnd)
            } else {
                exchange?.resume()
            }
            return
        }
    }

    /// Upstream bytes on their way to the client: the blocks of an event stream, else the
    /// bytes; `hold` when the client has fallen behind.
    private struct Delivery {
        let sink: any StreamSink
        let bytes: [UInt8]
        let blocks: [SSEBlock]
        let stream: EventStream?
        let hold: Bool
    }

    /// Takes `bytes` in (an event stream's splitter, the client's backlog) under the lock.
    private static func prepare(_ bytes: [UInt8], in state: inout State) -> Delivery? {
        guard let sink = state.sink else { return nil }
        let blocks = state.splitter?.feed(bytes) ?? []
        state.unacknowledged += bytes.count
        let hold = state.unacknowledged > highWater && !state.waitingForClient
        if hold { state.waitingForClient = true }
        return Delivery(sink: sink, bytes: bytes, blocks: blocks, stream: state.relayStream, hold: hold)
    }

    /// Writes a delivery to the client, and holds the upstream back when the client falls
    /// behind.
    private func write(_ delivery: Delivery) {
        let sink = delivery.sink
        if let stream = delivery.stream {
            for block in delivery.blocks { stream.relay(block, toConnection: sink.connectionID) }
        } else {
            sink.write(delivery.bytes)
        }
        guard delivery.hold else { return }
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
        let (record, remainder) = state.withLock { state in
            (state.record, state.splitter?.takeRemainder() ?? [])
        }
        // An unfinished last block goes as it came: the client's parser decides about it.
        if !remainder.isEmpty { sink.write(remainder) }
        switch ending {
        case .complete:
            record?.noteEnding(.finished)
            sink.finish()
        case .failed(let failure):
            sink.nameEnd((record?.noteEnding(.upstreamClosed) ?? .upstreamClosed).rawValue)
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
