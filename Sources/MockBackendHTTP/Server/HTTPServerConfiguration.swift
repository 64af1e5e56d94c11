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

    public init(host: String = "127.0.0.1", port: Int = 0) {
        self.host = host
        self.port = port
    }
}
