/// Whether a workflow session still runs.
///
/// A string-backed value rather than a closed enum, so a mode the client does not know yet
/// still decodes.
public struct WorkflowMode: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The mode as the wire spells it.
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Running, or paused: a paused session is still live, and its stream says it paused.
    public static let live = WorkflowMode(rawValue: "live")
    /// Past `loop.completed`; the stream has ended.
    public static let complete = WorkflowMode(rawValue: "complete")

    /// The raw value.
    public var description: String { rawValue }
}

/// `GET /api/sessions/{id}/status`, and the 202 body of pause, resume and steer: the
/// session's state, `mode` included. Schema `WorkflowStatus` in `openapi/openapi.yaml`.
///
/// The list (`WorkflowSummary`) has no `mode`, so a list item does not decode as this type.
public struct WorkflowStatus: Codable, Sendable, Equatable {
    /// The session's id.
    public var id: String
    /// The current iteration, from 1.
    public var iteration: Int
    /// The hat worn in the current iteration.
    public var hat: String
    /// `live` or `complete`.
    public var mode: WorkflowMode
    /// Simulated seconds the session has run, to the millisecond: time paused does not
    /// count, and it stops at completion. Sent as `elapsed_secs`.
    public var elapsedSecs: Double

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat, mode
        case elapsedSecs = "elapsed_secs"
    }

    public init(id: String, iteration: Int, hat: String, mode: WorkflowMode, elapsedSecs: Double) {
        self.id = id
        self.iteration = iteration
        self.hat = hat
        self.mode = mode
        self.elapsedSecs = elapsedSecs
    }

    /// True while the session runs or is paused.
    public var isLive: Bool { mode == .live }
}
