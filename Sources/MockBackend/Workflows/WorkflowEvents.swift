/// One workflow event: the data of `event: workflow` on a session's stream (SPEC 4.4).
struct WorkflowEvent: Codable, Sendable, Equatable {
    var topic: String
    /// Epoch milliseconds of simulated wall time: the settings' epoch plus the clock's time.
    var ts: Int64
    var payload: JSONValue
}

/// The topics the simulation publishes; admin may publish any other.
enum WorkflowTopic {
    /// `{"iteration","hat"}`: an iteration began (the first one when the session is created).
    static let iterationStarted = "iteration.started"
    /// `{"from","to"}`: the session changed hats, which it does with every new iteration.
    static let hatChanged = "hat.changed"
    /// `{"iteration","hat","tool"}`: the iteration's tool call.
    static let toolCalled = "tool.called"
    /// `{"iterations","reason"}`: the last event of a session; its stream ends after it.
    /// `reason` is `max_iterations`, or `admin` for `POST /__admin/workflows/{id}/complete`.
    static let loopCompleted = "loop.completed"
    /// `{"iteration","hat"}`: `POST /api/sessions/{id}/pause`.
    static let sessionPaused = "session.paused"
    /// `{"iteration","hat"}`: `POST /api/sessions/{id}/resume`.
    static let sessionResumed = "session.resumed"
    /// `{"message","iteration","hat"}`: `POST /api/sessions/{id}/steer`.
    static let sessionSteered = "session.steered"
}
