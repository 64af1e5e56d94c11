/// What the journal knows of one stream connection; `GET /__admin/streams/connections`
/// (schema `StreamConnection`).
public struct StreamConnectionSnapshot: Codable, Sendable, Equatable {
    /// The gap between a client's previous connection ending and this one starting.
    public struct Reconnect: Codable, Sendable, Equatable {
        public var gapMs: Double
        public var previousEndedAt: String
        /// The `retry:` the server had advertised when the previous connection ended.
        public var advertisedRetryMs: Int?

        public init(gapMs: Double, previousEndedAt: String, advertisedRetryMs: Int?) {
            self.gapMs = gapMs
            self.previousEndedAt = previousEndedAt
            self.advertisedRetryMs = advertisedRetryMs
        }
    }

    /// The record's number, from 1 in the order connections opened.
    public var id: Int
    public var stream: String
    /// `sse` for an event-stream response, `websocket` for a WebSocket (the V1 progress
    /// socket of an import job).
    public var `protocol`: String
    public var connection: UInt64
    /// Who connected: its `X-Client-Id`, else its `User-Agent`.
    public var client: String
    public var connectedAt: String
    public var endedAt: String?
    /// Why it ended: a `StreamEndCause`.
    public var endReason: String?
    /// The Last-Event-ID it sent.
    public var lastEventId: String?
    public var requestHeaders: [String: String]
    /// The ids of the events delivered, in order.
    public var deliveredIds: [String]
    public var deliveredCount: Int
    public var reconnect: Reconnect?
    /// True for a proxied stream's connection (`proxy/<path>`); absent otherwise.
    public var proxied: Bool?
    /// A proxied stream's upstream event ids as received (the first 200), in order; the
    /// events it was written besides them were pushes. Absent for other streams.
    public var upstreamIds: [String]?
    /// Over HTTP/2: the RST_STREAM that ended the stream and the GOAWAY of its connection
    /// while it was open, each sent or received, in order. Absent when there was none.
    public var http2Endings: [HTTP2EndingFrame]?

    public init(
        id: Int, stream: String, protocol: String, connection: UInt64, client: String, connectedAt: String,
        endedAt: String?, endReason: String?, lastEventId: String?, requestHeaders: [String: String],
        deliveredIds: [String], deliveredCount: Int, reconnect: Reconnect?
    ) {
        self.id = id
        self.stream = stream
        self.protocol = `protocol`
        self.connection = connection
        self.client = client
        self.connectedAt = connectedAt
        self.endedAt = endedAt
        self.endReason = endReason
        self.lastEventId = lastEventId
        self.requestHeaders = requestHeaders
        self.deliveredIds = deliveredIds
        self.deliveredCount = deliveredCount
        self.reconnect = reconnect
    }
}
