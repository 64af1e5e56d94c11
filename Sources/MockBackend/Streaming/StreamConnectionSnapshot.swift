/// What the journal knows of one stream connection; `GET /__admin/streams/connections`.
public struct StreamConnectionSnapshot: Codable, Sendable, Equatable {
    /// The gap between a client's previous connection ending and this one starting.
    public struct Reconnect: Codable, Sendable, Equatable {
        public var gapMs: Double
        public var previousEndedAt: String
        /// The `retry:` the server had advertised when the previous connection ended.
        public var advertisedRetryMs: Int?
    }

    /// The record's number, from 1 in the order connections opened.
    public var id: Int
    public var stream: String
    /// `sse` for an event-stream response, `websocket` for a WebSocket (the V1 progress
    /// socket of an import job).
    public var `protocol`: String
    public var connection: UInt64
    public var client: String
    public var connectedAt: String
    public var endedAt: String?
    public var endReason: String?
    public var lastEventId: String?
    public var requestHeaders: [String: String]
    public var deliveredIds: [String]
    public var deliveredCount: Int
    public var reconnect: Reconnect?
}
