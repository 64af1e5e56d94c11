import MockBackend

extension AdminClient {
    /// `/__admin/workflows`: workflow sessions made and driven without the API key.
    public struct Workflows: Sendable {
        let http: KitHTTP

        /// `POST /__admin/workflows`: a new live session; every field may be left out (a
        /// generated id, the defaults). 409 `SESSION_EXISTS` for an id in use.
        @discardableResult
        public func create(
            id: String? = nil, iterations: Int? = nil, hats: [String]? = nil, paceSeconds: Double? = nil
        ) async throws -> WorkflowStatus {
            try await http.call(
                "POST", "/__admin/workflows",
                json: CreateRequest(id: id, iterations: iterations, hats: hats, paceSeconds: paceSeconds))
        }

        /// `POST /__admin/workflows/{id}/events`: any event on the session's stream. Under a
        /// topic the simulation publishes, the payload must have that topic's fields.
        @discardableResult
        public func publish(_ id: String, topic: String, payload: [String: JSONValue] = [:]) async throws
            -> WorkflowEventPublished
        {
            try await http.call(
                "POST", "/__admin/workflows/\(KitHTTP.segment(id))/events",
                json: EventRequest(topic: topic, payload: .object(payload)))
        }

        /// `POST /__admin/workflows/{id}/complete`: `loop.completed` with reason `admin`, and
        /// the stream ends.
        @discardableResult
        public func complete(_ id: String) async throws -> WorkflowStatus {
            try await http.call("POST", "/__admin/workflows/\(KitHTTP.segment(id))/complete")
        }
    }

    struct CreateRequest: Encodable {
        var id: String?
        var iterations: Int?
        var hats: [String]?
        var paceSeconds: Double?
    }

    struct EventRequest: Encodable {
        var topic: String
        var payload: JSONValue
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
}
