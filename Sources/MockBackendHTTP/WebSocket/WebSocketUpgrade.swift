/// The body of a response that switches its connection to WebSocket
/// (`HTTPResponse.Body.webSocket`): the accept value of a handshake already checked, and
/// what to run once the connection has switched.
public struct WebSocketUpgrade: Sendable {
    /// `Sec-WebSocket-Accept` of the 101 response (RFC 6455 §4.2.2).
    public let accept: String
    let onOpen: @Sendable (WebSocketWriter) -> Void

    init(accept: String, onOpen: @escaping @Sendable (WebSocketWriter) -> Void) {
        self.accept = accept
        self.onOpen = onOpen
    }
}

extension HTTPResponse {
    /// Answers a WebSocket opening handshake (RFC 6455 §4.2): when `request` is a valid
    /// upgrade, a 101 response that switches the connection, after which `onOpen` gets the
    /// connection's writer; else the problem+json answer that refuses it (426 or 400,
    /// `WebSocketHandshakeError`), and `onOpen` never runs.
    ///
    /// `onOpen` runs once the 101 head is queued, on the connection's event loop, before any
    /// frame of the client is read: handlers set there (`onText`, `onClose`) miss nothing.
    /// It must not block. `headers` go into the 101 head (a `Sec-WebSocket-Protocol` the
    /// server chose, a cookie); `Upgrade`, `Connection` and `Sec-WebSocket-Accept` are the
    /// server's own. A response shaper set on the result sees every write of the connection
    /// (`ResponseWriteKind.head`, `.message`, `.control`).
    public static func webSocket(
        upgrading request: HTTPRequest, headers: HTTPHeaders = HTTPHeaders(),
        _ onOpen: @escaping @Sendable (WebSocketWriter) -> Void
    ) -> HTTPResponse {
        switch WebSocketHandshake.validate(request) {
        case .success(let accept):
            HTTPResponse(
                status: 101, headers: headers, body: .webSocket(WebSocketUpgrade(accept: accept, onOpen: onOpen)))
        case .failure(let error):
            error.response
        }
    }

    /// Whether the response switches its connection to WebSocket.
    public var isWebSocketUpgrade: Bool {
        if case .webSocket = body { return true }
        return false
    }
}
