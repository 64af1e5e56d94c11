/// One write of a stream, framed once for every sink that takes it: as event-stream body
/// bytes for the sinks that write bytes (`StreamFraming.eventStream`), and as WebSocket
/// messages for those that write messages (`StreamFraming.webSocket`). A broadcast builds
/// only the forms its sinks take; a sink skips a payload without its form (a heartbeat
/// comment means nothing to a WebSocket).
public struct StreamPayload: Sendable {
    /// The bytes of an event stream, or nil.
    public var body: PreparedBodyPart?
    /// The WebSocket messages, or nil.
    public var messages: PreparedWebSocketMessages?
    /// How many events it carries, for counting deliveries (`DeliveryTally`): events of the
    /// stream's log, not comments, `retry:` lines or a `reset` notice. For `messages`, the
    /// number of messages.
    public var events: Int

    public init(body: PreparedBodyPart? = nil, messages: PreparedWebSocketMessages? = nil, events: Int = 0) {
        self.body = body
        self.messages = messages
        self.events = events
    }

    /// Whether it has the form `framing` writes.
    public func takes(_ framing: StreamFraming) -> Bool {
        switch framing {
        case .eventStream: body != nil
        case .webSocket: messages != nil
        }
    }
}

/// Body bytes framed once for every kind of connection, so a broadcast to many streams
/// copies no bytes per subscriber.
public struct PreparedBodyPart: Sendable {
    /// The bytes as sent on a close-delimited (HTTP/1.0) stream.
    public let raw: [UInt8]
    /// The same bytes as one chunk of a chunked (HTTP/1.1) stream; nil when a connection
    /// frames them itself (a write to one connection only).
    public let chunk: [UInt8]?

    /// Bytes framed now, for many connections.
    public init(_ bytes: [UInt8]) {
        raw = bytes
        chunk = HTTPResponseEncoder.chunk(bytes)
    }

    /// Bytes for one connection, which frames them as its response needs.
    public init(unframed bytes: [UInt8]) {
        raw = bytes
        chunk = nil
    }
}
