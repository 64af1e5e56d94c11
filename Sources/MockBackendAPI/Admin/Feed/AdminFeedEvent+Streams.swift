extension AdminFeedEvent {
    /// `stream.connected`: a connection subscribed to a stream.
    public struct StreamConnected: AdminFeedPayload {
        public var stream: String
        public var connection: UInt64
        /// The Last-Event-ID it sent; sent as `null` when it sent none.
        public var lastEventId: String?
        /// Its `X-Client-Id`, else its `User-Agent`.
        public var client: String
        /// `sse` or `websocket`.
        public var `protocol`: String

        public init(stream: String, connection: UInt64, lastEventId: String?, client: String, protocol: String) {
            self.stream = stream
            self.connection = connection
            self.lastEventId = lastEventId
            self.client = client
            self.protocol = `protocol`
        }

        public var fields: [String: JSONValue] {
            [
                "stream": .string(stream), "connection": .connection(connection),
                "lastEventId": lastEventId.map(JSONValue.string) ?? .null, "client": .string(client),
                "protocol": .string(`protocol`),
            ]
        }
    }

    /// `stream.disconnected`: a stream connection ended.
    public struct StreamDisconnected: AdminFeedPayload {
        public var stream: String
        public var connection: UInt64
        /// Why: a `StreamEndCause`.
        public var reason: String
        /// How many events were delivered to it (their bytes left for its socket).
        public var delivered: Int

        public init(stream: String, connection: UInt64, reason: String, delivered: Int) {
            self.stream = stream
            self.connection = connection
            self.reason = reason
            self.delivered = delivered
        }

        public var fields: [String: JSONValue] {
            [
                "stream": .string(stream), "connection": .connection(connection), "reason": .string(reason),
                "delivered": .integer(delivered),
            ]
        }
    }
}
