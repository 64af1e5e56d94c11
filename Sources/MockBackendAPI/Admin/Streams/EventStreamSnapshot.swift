/// What `GET /__admin/streams` shows of one stream (schema `StreamSnapshot`).
public struct EventStreamSnapshot: Codable, Sendable, Equatable {
    /// One connection reading the stream now.
    public struct Subscriber: Codable, Sendable, Equatable {
        public var connection: UInt64
        /// `sse` or `websocket`.
        public var `protocol`: String
        /// Its record's number in the stream journal.
        public var record: Int
        public var connectedAt: String
        public var lastEventId: String?
        public var deliveredCount: Int
        /// Whether it is still being replayed what it missed (the live events wait).
        public var catchingUp: Bool

        public init(
            connection: UInt64, protocol: String, record: Int, connectedAt: String, lastEventId: String?,
            deliveredCount: Int, catchingUp: Bool
        ) {
            self.connection = connection
            self.protocol = `protocol`
            self.record = record
            self.connectedAt = connectedAt
            self.lastEventId = lastEventId
            self.deliveredCount = deliveredCount
            self.catchingUp = catchingUp
        }
    }

    /// `imports/<jobId>`, `userinfo/<userId>`, `channels/<name>`, `admin/events`, …
    public var name: String
    public var lastEventId: String?
    /// Events published since the stream began.
    public var eventCount: Int
    /// Events its log still holds for replay.
    public var retainedCount: Int
    public var finished: Bool
    /// The `retry:` it advertises (milliseconds), if any.
    public var retry: Int?
    public var heartbeat: Bool
    public var subscribers: [Subscriber]

    public init(
        name: String, lastEventId: String?, eventCount: Int, retainedCount: Int, finished: Bool, retry: Int?,
        heartbeat: Bool, subscribers: [Subscriber]
    ) {
        self.name = name
        self.lastEventId = lastEventId
        self.eventCount = eventCount
        self.retainedCount = retainedCount
        self.finished = finished
        self.retry = retry
        self.heartbeat = heartbeat
        self.subscribers = subscribers
    }
}
