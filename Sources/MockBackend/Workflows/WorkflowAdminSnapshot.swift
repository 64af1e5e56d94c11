import MockBackendAPI

/// What `GET /__admin/workflows` shows of one session: its status, whether it is paused,
/// and how it was configured. Admin only; clients read `WorkflowSummary` and
/// `WorkflowStatus`.
package struct WorkflowAdminSnapshot: Codable, Sendable, Equatable {
    /// The session's id.
    package var id: String
    /// The current iteration, from 1.
    package var iteration: Int
    /// The hat worn in the current iteration.
    package var hat: String
    /// `live` or `complete`, as the status says.
    package var mode: WorkflowMode
    /// Whether `POST /api/sessions/{id}/pause` holds it.
    package var paused: Bool
    /// Simulated seconds it has run, as the status says. Sent as `elapsed_secs`.
    package var elapsedSecs: Double
    /// ISO 8601 UTC, as the list says. Sent as `started_at`.
    package var startedAt: String
    /// Iterations before `loop.completed`.
    package var iterations: Int
    /// The hats it cycles through, one per iteration.
    package var hats: [String]
    /// Simulated seconds between steps.
    package var paceSeconds: Double
    /// The name of its stream, `workflows/<id>`.
    package var stream: String

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat, mode, paused, iterations, hats, paceSeconds, stream
        case elapsedSecs = "elapsed_secs"
        case startedAt = "started_at"
    }
}
