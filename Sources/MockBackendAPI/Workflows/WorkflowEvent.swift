/// The data of `event: workflow` on a session's stream (`GET /api/sessions/{id}/events`):
/// `{"topic","ts","payload"}`. Schema `WorkflowEvent` in `openapi/openapi.yaml`.
///
/// The payload is an object whose shape the topic names (see `WorkflowTopic`); `payload(as:)`
/// reads it as one of the typed payloads, such as `WorkflowToolCall`.
public struct WorkflowEvent: WireEvent, Codable, Sendable, Equatable {
    /// Every workflow event goes out as `event: workflow`.
    public static var eventType: String? { "workflow" }

    /// What happened, e.g. `iteration.started`; admin may publish any other topic.
    public var topic: String
    /// Epoch milliseconds of simulated wall time; it never goes back within a stream.
    public var ts: Int64
    /// The topic's fields.
    public var payload: [String: JSONValue]

    public init(topic: String, ts: Int64, payload: [String: JSONValue]) {
        self.topic = topic
        self.ts = ts
        self.payload = payload
    }

    /// An event with a typed payload, e.g. `WorkflowHatChange` under `hat.changed`.
    /// - Throws: `EncodingError` when the payload does not encode as a JSON object.
    public init(topic: String, ts: Int64, encoding payload: some Encodable) throws {
        guard case .object(let fields) = try JSONValue(encoding: payload) else {
            throw EncodingError.invalidValue(
                payload, .init(codingPath: [], debugDescription: "A workflow payload must be a JSON object."))
        }
        self.init(topic: topic, ts: ts, payload: fields)
    }

    /// The payload read as a typed payload, e.g. `WorkflowIteration` for `iteration.started`.
    /// - Throws: `DecodingError` when the payload does not have that type's fields.
    public func payload<Payload: Decodable>(as type: Payload.Type) throws -> Payload {
        try JSONValue.object(payload).decode(as: type)
    }
}

/// The topics the backend's simulation publishes, each with the type of its payload.
/// Admin (`POST /__admin/workflows/{id}/events`) may publish any other.
public enum WorkflowTopic {
    /// `WorkflowIteration`: an iteration began (the first one when the session is created).
    public static let iterationStarted = "iteration.started"
    /// `WorkflowHatChange`: the session changed hats, which it does with every new
    /// iteration when it has more than one hat.
    public static let hatChanged = "hat.changed"
    /// `WorkflowToolCall`: the iteration's tool call.
    public static let toolCalled = "tool.called"
    /// `WorkflowLoopCompletion`: the last event of a session; its stream ends after it.
    public static let loopCompleted = "loop.completed"
    /// `WorkflowIteration`: `POST /api/sessions/{id}/pause`.
    public static let sessionPaused = "session.paused"
    /// `WorkflowIteration`: `POST /api/sessions/{id}/resume`.
    public static let sessionResumed = "session.resumed"
    /// `WorkflowSteering`: `POST /api/sessions/{id}/steer`.
    public static let sessionSteered = "session.steered"

    /// Every topic above, in the order a session can first publish them.
    public static let all = [
        iterationStarted, toolCalled, hatChanged, sessionPaused, sessionResumed, sessionSteered, loopCompleted,
    ]
}
