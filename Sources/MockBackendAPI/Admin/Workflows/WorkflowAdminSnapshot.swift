/// What `GET /__admin/workflows` shows of one session: its status, whether it is paused,
/// and how it was configured. Admin only; clients read `WorkflowSummary` and
/// `WorkflowStatus`.
public struct WorkflowAdminSnapshot: Codable, Sendable, Equatable {
    /// The session's id.
    public var id: String
    /// The current iteration, from 1.
    public var iteration: Int
    /// The hat worn in the current iteration.
    public var hat: String
    /// `live` or `complete`, as the status says.
    public var mode: WorkflowMode
    /// Whether `POST /api/sessions/{id}/pause` holds it.
    public var paused: Bool
    /// Simulated seconds it has run, as the status says. Sent as `elapsed_secs`.
    public var elapsedSecs: Double
    /// ISO 8601 UTC, as the list says. Sent as `started_at`.
    public var startedAt: String
    /// Iterations before `loop.completed`; nil (not sent): until completed through the admin API.
    public var iterations: Int?
    /// The hats it cycles through, one per iteration.
    public var hats: [String]
    /// Simulated seconds between steps.
    public var paceSeconds: Double
    /// The name of its stream, `workflows/<id>`.
    public var stream: String

    public init(
        id: String, iteration: Int, hat: String, mode: WorkflowMode, paused: Bool, elapsedSecs: Double,
        startedAt: String, iterations: Int?, hats: [String], paceSeconds: Double, stream: String
    ) {
        self.id = id
        self.iteration = iteration
        self.hat = hat
        self.mode = mode
        self.paused = paused
        self.elapsedSecs = elapsedSecs
        self.startedAt = startedAt
        self.iterations = iterations
        self.hats = hats
        self.paceSeconds = paceSeconds
        self.stream = stream
    }

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat, mode, paused, iterations, hats, paceSeconds, stream
        case elapsedSecs = "elapsed_secs"
        case startedAt = "started_at"
    }
}
