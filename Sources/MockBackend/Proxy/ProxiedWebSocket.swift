import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A proxied WebSocket upgrade. The mock opens a WebSocket of its own to the upstream (a
/// fresh key, the client's subprotocols, no extensions) and, once the upstream switched,
/// answers the client's handshake with a WebSocket of its own: messages pass between the
/// two as they come, the upstream's through a `proxy/<path>` stream of the mock, so every
/// WebSocket fault counts them, pushes are written between them, and admin disconnects act
/// on the client's side. Pings are answered on each side by the side they came to; a close
/// on either side closes the other. An upstream that answers anything but 101 is answered
/// as any proxied request (`ProxiedResponse`).
///
/// Upstream callbacks come on the upstream loop, the client's WebSocket on its own; what
/// they share is under one lock.
final class ProxiedWebSocket: UpstreamResponseHandler, Sendable {
    private struct State {
        var switched = false
        var decoder = WebSocketFrameDecoder(maxMessageBytes: 16 << 20, role: .client)
        var assembler = WebSocketMessageAssembler()
        var writer: WebSocketWriter?
        var stream: EventStream?
        var record: StreamConnectionRecord?
        /// Upstream messages that came before the client's side was open.
        var early: [WebSocketInboundMessage] = []
        /// The upstream's end, when it came before the client's side was open.
        var upstreamEnded: UpstreamEnding?
        /// Whether upstream messages go to the client as they come: false until `opened`
        /// has passed on every early one, so none overtakes what came before it.
        var ready = false
    }

    /// The request's answer as any proxied request's (its deferred response, its context);
    /// it also answers a refusal (anything but 101).
    private let plain: ProxiedResponse
    /// The key sent upstream (RFC 6455 §4.1), to check its answer with.
    let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    private let state = LockedValue(State())

    init(_ plain: ProxiedResponse) {
        self.plain = plain
    }

    private var deferred: DeferredResponse { plain.deferred }
    private var request: HTTPRequest { plain.request }
    private var context: ProxyContext { plain.context }
    private var token: String? { plain.token }

    /// The exchange, once sent.
    var exchange: UpstreamExchange? {
        get { plain.exchange }
        set { plain.exchange = newValue }
    }

    /// The upgrade request as it goes upstream: the client's fields less its handshake's,
    /// then the mock's own handshake.
    func upstreamHeaders(from headers: HTTPHeaders) -> HTTPHeaders {
        var headers = headers
        for name in ["Sec-WebSocket-Key", "Sec-WebSocket-Extensions", "Sec-WebSocket-Accept"] { headers.remove(name) }
        headers.set("Connection", "Upgrade")
        headers.set("Upgrade", "websocket")
        headers.set("Sec-WebSocket-Version", "13")
        headers.set("Sec-WebSocket-Key", key)
        return headers
    }

    // MARK: Upstream

    func upstreamReceivedHead(_ head: HTTPResponseHead, of exchange: UpstreamExchange) {
        guard head.status == 101 else { return plain.upstreamReceivedHead(head, of: exchange) }
        let latency = ContinuousClock.now - exchange.startedAt
        guard head.headers["Sec-WebSocket-Accept"] == WebSocketHandshake.acceptValue(forKey: key),
            head.headers["Upgrade"]?.lowercased() == "websocket"
        else {
            exchange.cancel()
            var response = ProblemDetails(
                status: 502, code: "UPSTREAM_BAD_RESPONSE",
                detail: "The upstream switched protocols without a valid WebSocket handshake (RFC 6455 §4.1)."
            ).response
            response.relay = RelayedAnswer(upstreamStatus: 101, latency: latency)
            deferred.complete(with: response)
            return
        }
        state.withLock { $0.switched = true }
        plain.tape?.noteHead(status: 101, headers: head.headers, kind: .webSocket)
        var headers = HTTPHeaders()
        if let chosen = head.headers["Sec-WebSocket-Protocol"] { headers.set("Sec-WebSocket-Protocol", chosen) }
        ProxyHeaders.appendVia(to: &headers)
        var response = HTTPResponse.webSocket(upgrading: request, headers: headers) { [self] writer in
            opened(writer)
        }
        response.relay = RelayedAnswer(upstreamStatus: 101, latency: latency)
        deferred.complete(with: response)
    }

    func upstreamReceivedBody(_ bytes: [UInt8], of exchange: UpstreamExchange) {
        let (switched, messages, failure) = state.withLock {
            state -> (Bool, [WebSocketInboundMessage], WebSocketProtocolError?) in
            guard state.switched else { return (false, [], nil) }
            var messages: [WebSocketInboundMessage] = []
            var failure: WebSocketProtocolError?
            for event in state.decoder.feed(bytes) {
                switch event {
                case .frame(let frame):
                    if let message = state.assembler.append(frame) { messages.append(message) }
                case .failure(let error):
                    failure = error
                }
            }
            guard state.ready else {
                state.early += messages
                return (true, [], failure)
            }
            return (true, messages, failure)
        }
        guard switched else { return plain.upstreamReceivedBody(bytes, of: exchange) }
        for message in messages { handle(message) }
        if let failure {
            // The upstream broke the protocol: its side closes, and the client's with 1011.
            exchange.write(WebSocketClientFrames.close(WebSocketClosePayload(code: failure.closeCode)))
            exchange.cancel()
            state.withLock(\.writer)?.close(code: .internalError, reason: "upstream protocol error")
        }
    }

    func upstreamEnded(_ ending: UpstreamEnding, of exchange: UpstreamExchange) {
        let (switched, writer) = state.withLock { state -> (Bool, WebSocketWriter?) in
            guard state.ready else {
                state.upstreamEnded = ending
                return (state.switched, nil)
            }
            return (state.switched, state.writer)
        }
        guard switched else { return plain.upstreamEnded(ending, of: exchange) }
        guard let writer else { return }
        upstreamGone(ending, writer: writer)
    }

    // MARK: The client's side

    /// The client's WebSocket is open: it joins the relayed stream, and what came early goes.
    private func opened(_ writer: WebSocketWriter) {
        let (stream, record) = context.joinRelay(writer, request: request, lastEventID: nil, token: token) {
            [weak self] in self?.clientLeft()
        }
        writer.onText { [weak self] text in
            self?.exchange?.write(WebSocketClientFrames.frame(.text, payload: Array(text.utf8)))
        }
        writer.onBinary { [weak self] bytes in
            self?.exchange?.write(WebSocketClientFrames.frame(.binary, payload: bytes))
        }
        state.withLock { state in
            state.writer = writer
            state.stream = stream
            state.record = record
        }
        // What came early, in order, until none is left; then messages pass as they come.
        while true {
            let (early, ended, done) = state.withLock { state -> ([WebSocketInboundMessage], UpstreamEnding?, Bool) in
                guard state.early.isEmpty else {
                    defer { state.early = [] }
                    return (state.early, nil, false)
                }
                state.ready = true
                return ([], state.upstreamEnded, true)
            }
            for message in early { handle(message) }
            guard done else { continue }
            if let ended { upstreamGone(ended, writer: writer) }
            return
        }
    }

    /// One whole message from the upstream.
    private func handle(_ message: WebSocketInboundMessage) {
        let (writer, stream) = state.withLock { ($0.writer, $0.stream) }
        guard let writer, let stream else { return }
        switch message {
        case .text(let text):
            plain.tape?.noteMessage(text: text, binary: nil)
            stream.relay(PreparedWebSocketMessage(text: text), toConnection: writer.connectionID)
        case .binary(let bytes):
            plain.tape?.noteMessage(text: nil, binary: bytes)
            stream.relay(PreparedWebSocketMessage(binary: bytes), toConnection: writer.connectionID)
        case .ping(let payload):
            exchange?.write(WebSocketClientFrames.pong(payload))
        case .pong:
            break
        case .close(let payload):
            // The upstream closes: its close is answered, and the client's side closes the same.
            plain.tape?.noteClose(code: Int(payload.code?.rawValue ?? 1005), reason: payload.reason)
            plain.tape?.noteEnding(.complete)
            exchange?.write(WebSocketClientFrames.close(payload))
            exchange?.closeWrite()
            noteUpstreamEnd(writer)
            writer.close(code: payload.code ?? .normalClosure, reason: payload.reason)
        }
    }

    /// The upstream's connection ended: a client still open loses its connection the same
    /// way (FIN or RST), as it would have without the mock in between.
    private func upstreamGone(_ ending: UpstreamEnding, writer: WebSocketWriter) {
        plain.tape?.noteEnding(RecordedExchange.Ending(ending))
        guard !writer.isClosed else { return }
        noteUpstreamEnd(writer)
        if case .failed(.reset) = ending {
            writer.abort(reset: true)
        } else {
            writer.abort(reset: false)
        }
    }

    /// The upstream ended the socket: the journal and the request log say so.
    private func noteUpstreamEnd(_ writer: WebSocketWriter) {
        let record = state.withLock(\.record)
        writer.nameEnd((record?.noteEnding(.upstreamClosed) ?? .upstreamClosed).rawValue)
    }

    /// The client's side ended: the upstream hears a close, then the connection goes.
    private func clientLeft() {
        guard let exchange else { return }
        exchange.write(WebSocketClientFrames.close(WebSocketClosePayload(code: .goingAway)))
        exchange.closeWrite()
        exchange.cancel()
    }
}
