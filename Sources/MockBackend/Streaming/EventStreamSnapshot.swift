/// What `GET /__admin/streams` shows of one stream.
public struct EventStreamSnapshot: Codable, Sendable, Equatable {
    public struct Subscriber: Codable, Sendable, Equatable {
        public var connection: UInt64
        /// `sse` or `websocket`.
        public var `protocol`: String
        public var record: Int
        public var connectedAt: String
        public var lastEventId: String?
        public var deliveredCount: Int
        /// Whether it is still being replayed what it missed (the live events wait).
        public var catchingUp: Bool
    }

    public var name: String
    public var lastEventId: String?
    public var eventCount: Int
    public var retainedCount: Int
    public var finished: Bool
    public var retry: Int?
    public var heartbeat: Bool
    public var subscribers: [Subscriber]
}
