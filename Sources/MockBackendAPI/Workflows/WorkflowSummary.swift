/// One session as `GET /api/sessions` lists it. There is no `mode` here, as there is none
/// in the real list endpoint: a client that needs to know whether a session is live reads
/// `GET /api/sessions/{id}/status` (`WorkflowStatus`). Schema `WorkflowSummary` in
/// `openapi/openapi.yaml`.
public struct WorkflowSummary: Codable, Sendable, Equatable {
    /// The session's id, e.g. `s1`, or `wf_` and ten hex digits when generated.
    public var id: String
    /// The current iteration, from 1.
    public var iteration: Int
    /// The hat worn in the current iteration, e.g. `planner`.
    public var hat: String
    /// ISO 8601 UTC: when the session was created, in simulated wall time. Sent as
    /// `started_at`.
    public var startedAt: String

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat
        case startedAt = "started_at"
    }

    public init(id: String, iteration: Int, hat: String, startedAt: String) {
        self.id = id
        self.iteration = iteration
        self.hat = hat
        self.startedAt = startedAt
    }
}

/// The paths of the workflow API, relative to the server's base URL. Every route takes the
/// API key, as `Authorization: Bearer <key>` or `X-API-Key: <key>`.
public enum WorkflowPaths {
    /// `GET`: every session, oldest first (`[WorkflowSummary]`).
    public static let sessions = "api/sessions"

    /// `GET`: the session's status (`WorkflowStatus`).
    public static func status(id: String) -> String { "api/sessions/\(id)/status" }

    /// `GET`: the session's event stream (`event: workflow`, data `WorkflowEvent`).
    public static func events(id: String) -> String { "api/sessions/\(id)/events" }

    /// `POST`: stops the session advancing; 202 with its status.
    public static func pause(id: String) -> String { "api/sessions/\(id)/pause" }

    /// `POST`: lets a paused session go on; 202 with its status.
    public static func resume(id: String) -> String { "api/sessions/\(id)/resume" }

    /// `POST` `{"message"}`: steers the session; 202 with its status.
    public static func steer(id: String) -> String { "api/sessions/\(id)/steer" }
}
