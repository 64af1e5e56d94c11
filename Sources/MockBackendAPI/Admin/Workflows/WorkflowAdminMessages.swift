/// `POST /__admin/workflows` (schema `WorkflowCreateRequest`): a new live session; every
/// field may be left out (a generated id, the defaults).
public struct WorkflowCreateRequest: Codable, Sendable, Equatable {
    /// 1 to 64 letters, digits, `.`, `_` or `-`, not `.` or `..`.
    public var id: String?
    /// From 1 to 10,000.
    public var iterations: Int?
    /// 1 to 64 hats, each one non-empty line.
    public var hats: [String]?
    /// Simulated seconds between steps, from 0.001 to 86,400.
    public var paceSeconds: Double?

    public init(id: String? = nil, iterations: Int? = nil, hats: [String]? = nil, paceSeconds: Double? = nil) {
        self.id = id
        self.iterations = iterations
        self.hats = hats
        self.paceSeconds = paceSeconds
    }
}

/// `POST /__admin/workflows/{id}/events`: any event on a session's stream. The payload is a
/// JSON object, as every workflow event's is (`WorkflowEvent`); left out or `null`, it is
/// `{}`. Under a topic the simulation publishes, it must have that topic's fields
/// (`WorkflowPayload`).
public struct WorkflowEventRequest: Codable, Sendable, Equatable {
    /// A non-empty single line.
    public var topic: String
    public var payload: JSONValue?

    public init(topic: String, payload: JSONValue? = nil) {
        self.topic = topic
        self.payload = payload
    }
}

/// The answer to `POST /__admin/workflows/{id}/events`: the event as its stream carries it.
public struct WorkflowEventPublished: Codable, Sendable, Equatable {
    public var session: String
    /// The event's id on the session's stream.
    public var eventId: String
    public var topic: String
    /// Epoch milliseconds of simulated wall time.
    public var ts: Int64
    public var payload: [String: JSONValue]

    public init(session: String, eventId: String, topic: String, ts: Int64, payload: [String: JSONValue]) {
        self.session = session
        self.eventId = eventId
        self.topic = topic
        self.ts = ts
        self.payload = payload
    }
}
