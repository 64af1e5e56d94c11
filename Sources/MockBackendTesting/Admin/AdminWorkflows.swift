import MockBackend

extension AdminClient {
    /// `/__admin/workflows`: workflow sessions listed, made and driven without the API key.
    public struct Workflows: Sendable {
        let http: KitHTTP

        /// `GET /__admin/workflows`: every session, its status, whether it is paused and how
        /// it was configured.
        public func list() async throws -> [WorkflowAdminSnapshot] {
            try await http.call("GET", "/__admin/workflows")
        }

        /// `POST /__admin/workflows`: a new live session; every field may be left out (a
        /// generated id, the defaults). 409 `SESSION_EXISTS` for an id in use.
        @discardableResult
        public func create(
            id: String? = nil, iterations: Int? = nil, hats: [String]? = nil, paceSeconds: Double? = nil
        ) async throws -> WorkflowStatus {
            try await http.call(
                "POST", "/__admin/workflows",
                json: WorkflowCreateRequest(id: id, iterations: iterations, hats: hats, paceSeconds: paceSeconds))
        }

        /// `POST /__admin/workflows/{id}/events`: any event on the session's stream. Under a
        /// topic the simulation publishes, the payload must have that topic's fields.
        @discardableResult
        public func publish(_ id: String, topic: String, payload: [String: JSONValue] = [:]) async throws
            -> WorkflowEventPublished
        {
            try await http.call(
                "POST", "/__admin/workflows/\(KitHTTP.segment(id))/events",
                json: WorkflowEventRequest(topic: topic, payload: .object(payload)))
        }

        /// `POST /__admin/workflows/{id}/complete`: `loop.completed` with reason `admin`, and
        /// the stream ends.
        @discardableResult
        public func complete(_ id: String) async throws -> WorkflowStatus {
            try await http.call("POST", "/__admin/workflows/\(KitHTTP.segment(id))/complete")
        }
    }
}
