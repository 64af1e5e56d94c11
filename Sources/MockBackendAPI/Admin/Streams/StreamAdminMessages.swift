/// `POST /__admin/streams/{stream}/events` (operation `pushStreamEvent` in
/// `openapi/openapi.yaml`): an event for a live stream, or a bare `retry`.
public struct StreamPushRequest: Codable, Sendable, Equatable {
    /// The event's type; nil for `message`.
    public var event: String?
    /// A string, or any JSON (sent serialized).
    public var data: JSONValue?
    /// The event's id; nil for the next of the stream's own.
    public var id: String?
    /// A `retry:` field to send with it (milliseconds).
    public var retry: Int?
    /// One connection only (its number from the stream journal); nil for every subscriber.
    public var connection: UInt64?
    /// Publish the event this many times (each with its own id): a flood on demand.
    public var count: Int?

    public init(
        event: String? = nil, data: JSONValue? = nil, id: String? = nil, retry: Int? = nil,
        connection: UInt64? = nil, count: Int? = nil
    ) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
        self.connection = connection
        self.count = count
    }
}

/// The answer to a push: the id the event got, and how many subscribers it went to.
public struct StreamPush: Codable, Sendable, Equatable {
    public var stream: String
    /// The event's id (of the last copy, for a flood); nil for a bare `retry`.
    public var id: String?
    public var delivered: Int

    public init(stream: String, id: String?, delivered: Int) {
        self.stream = stream
        self.id = id
        self.delivered = delivered
    }
}

/// `POST /__admin/streams/{stream}/disconnect`: FIN without the end of the body by
/// default, RST with `reset`, the end of the body (or close 1001 on a WebSocket) with
/// `graceful`.
public struct StreamDisconnectRequest: Codable, Sendable, Equatable {
    /// One connection only; nil for every subscriber.
    public var connection: UInt64?
    public var reset: Bool?
    public var graceful: Bool?

    public init(connection: UInt64? = nil, reset: Bool? = nil, graceful: Bool? = nil) {
        self.connection = connection
        self.reset = reset
        self.graceful = graceful
    }

    /// The request for `mode`: `broken` sets neither flag.
    public init(connection: UInt64? = nil, mode: DisconnectMode) {
        self.init(connection: connection, reset: mode == .reset ? true : nil, graceful: mode == .graceful ? true : nil)
    }

    /// How the connections end; nil when `reset` and `graceful` are both true, which
    /// cannot mean anything.
    public var mode: DisconnectMode? {
        switch (reset ?? false, graceful ?? false) {
        case (true, true): nil
        case (true, false): .reset
        case (false, true): .graceful
        case (false, false): .broken
        }
    }
}

/// The answer to a disconnect: how many connections were ended.
public struct StreamDisconnect: Codable, Sendable, Equatable {
    public var stream: String
    public var disconnected: Int

    public init(stream: String, disconnected: Int) {
        self.stream = stream
        self.disconnected = disconnected
    }
}
