/// Everything an `HTTPServer` needs to know before it starts. Every limit has a default
/// suited to a developer's machine; tests shrink them.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind: a name or a literal IPv4/IPv6 address. Default `127.0.0.1`.
    public var host: String = "127.0.0.1"
    /// Port to bind; 0 lets the kernel choose (read it back from `HTTPServer.port`).
    public var port: Int = 0
    /// Connections served at once; one more is answered 503 and closed. Default 4096.
    public var maxConnections: Int = 4096
    /// Parser size limits (target, headers, body).
    public var limits = HTTPParserLimits()
    /// Time a connection has to send a whole request head, counted from its first byte or
    /// from accept (slowloris). Default 10 s.
    public var headerTimeout: Duration = .seconds(10)
    /// Time a request body has to arrive once its head has. Default 60 s.
    public var bodyTimeout: Duration = .seconds(60)
    /// Time an idle keep-alive connection is kept. Streams are exempt. Default 60 s.
    public var idleTimeout: Duration = .seconds(60)
    /// After the last response on a closing connection, how long unread input is drained
    /// before the socket is closed, so the client reads the response instead of an RST.
    /// Default 1 s.
    public var lingerTimeout: Duration = .seconds(1)
    /// Most bytes a streamed response may have queued and unsent; a reader that falls
    /// further behind is disconnected. Default 1 MiB.
    public var maxUnsentStreamBytes: Int = 1 << 20
    /// Requests parsed ahead of the one being answered before reading pauses. Default 16.
    public var maxPipelinedRequests: Int = 16
    /// Which responses are gzip-compressed. Default: text-like bodies of 1 KiB or more
    /// for clients that accept gzip; event streams not.
    public var compression = ResponseCompression()
    /// Pings, limits and timeouts of connections upgraded to WebSocket.
    public var webSocket = WebSocketConfiguration()
    /// What watches the sockets: `epoll` on Linux, Dispatch sources elsewhere.
    public var readiness = ReadinessMechanism.platformDefault
    /// How a request's target is written in the log line of each request: as it came by
    /// default; a mock that proxies takes the secrets out (a session token in the query).
    public var loggedTarget: @Sendable (HTTPRequest) -> String = { $0.target }
    /// Whether a connection that begins with the HTTP/2 preface speaks HTTP/2 (h2c by prior
    /// knowledge on a plain listener, h2 after ALPN on TLS). Default on where the build has
    /// HTTP/2 (`HTTP2Support.isAvailable`); off, the preface is answered 505 as before.
    public var http2 = HTTP2Support.isAvailable
    /// The SETTINGS each new HTTP/2 connection announces, asked for at its start with the
    /// connection's id (a fault may lower the stream limit).
    public var http2Settings: @Sendable (UInt64) -> HTTP2Settings = { _ in HTTP2Settings() }
    /// Told of every RST_STREAM and GOAWAY that ends an HTTP/2 exchange, either way (the
    /// journals keep them). Called on a connection's loop: it must not block.
    public var onHTTP2Ending: @Sendable (HTTP2EndingNote) -> Void = { _ in }
    /// Asked with the head of each HTTP/2 request that has a body (no body yet): a number
    /// stops the window updates of its stream once that many body bytes came, so the
    /// client cannot send the rest (a `window_stall` fault); nil lets the body flow.
    public var http2RequestWindowStall: @Sendable (HTTPRequest) -> Int? = { _ in nil }

    public init(host: String = "127.0.0.1", port: Int = 0) {
        self.host = host
        self.port = port
    }
}

/// How the server runs connections upgraded to WebSocket (`HTTPServerConfiguration.webSocket`).
///
/// Timeouts after the upgrade: the HTTP idle and keep-alive logic no longer applies (the
/// header timeout still covers the upgrade request itself). Instead the server pings every
/// `pingInterval`, and a connection that receives nothing at all for `idleTimeout`, not even
/// a pong, is taken for dead and dropped without a close frame (reported as 1006). A live
/// client answers every ping (RFC 6455 §5.5.2), so with the defaults it is never idle, even
/// one that only listens.
public struct WebSocketConfiguration: Sendable {
    /// How often the server pings each connection (§5.5.2); zero sends no pings. Default 20 s.
    public var pingInterval: Duration = .seconds(20)
    /// How long a connection may receive no byte at all before it is dropped; zero never
    /// drops one. Default 60 s, three pings. With pings off, a client that only listens
    /// sends nothing: give it zero here.
    public var idleTimeout: Duration = .seconds(60)
    /// After the server's close frame, how long it waits for the client's before it closes
    /// the TCP connection anyway (§7.1.1). Default 5 s. When the server stops, its grace
    /// period (`HTTPServer.stop(gracePeriod:)`) may end the wait sooner.
    public var closeTimeout: Duration = .seconds(5)
    /// Largest message a client may send, all fragments together; a larger one fails the
    /// connection with 1009 (§7.4.1, §10.4) as soon as a frame header announces it.
    /// Default 1 MiB.
    public var maxMessageBytes: Int = 1 << 20

    public init() {}
}
