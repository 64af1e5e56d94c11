/// The payload of `iteration.started`, `session.paused` and `session.resumed`: where the
/// session is. Schema `WorkflowIterationPayload` in `openapi/openapi.yaml`.
public struct WorkflowIteration: Codable, Sendable, Equatable {
    /// The iteration, from 1.
    public var iteration: Int
    /// The hat worn in it.
    public var hat: String

    public init(iteration: Int, hat: String) {
        self.iteration = iteration
        self.hat = hat
    }
}

/// The payload of `hat.changed`. Schema `WorkflowHatChangePayload`.
public struct WorkflowHatChange: Codable, Sendable, Equatable {
    /// The hat of the iteration that ended.
    public var from: String
    /// The hat of the iteration that began.
    public var to: String

    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }
}

/// The payload of `tool.called`: one tool call per iteration. Schema
/// `WorkflowToolCallPayload`.
public struct WorkflowToolCall: Codable, Sendable, Equatable {
    /// The iteration, from 1.
    public var iteration: Int
    /// The hat worn in it.
    public var hat: String
    /// The tool, e.g. `read_file` or `run_tests`.
    public var tool: String

    public init(iteration: Int, hat: String, tool: String) {
        self.iteration = iteration
        self.hat = hat
        self.tool = tool
    }
}

/// The payload of `loop.completed`, the last event of a session. Schema
/// `WorkflowLoopCompletionPayload`.
public struct WorkflowLoopCompletion: Codable, Sendable, Equatable {
    /// `reason` when the session ran all its iterations.
    public static let maxIterations = "max_iterations"
    /// `reason` when admin completed it (`POST /__admin/workflows/{id}/complete`).
    public static let admin = "admin"

    /// The iterations it ran.
    public var iterations: Int
    /// `max_iterations` or `admin`.
    public var reason: String

    public init(iterations: Int, reason: String) {
        self.iterations = iterations
        self.reason = reason
    }
}

/// The payload of `session.steered`: the client's message, and where the session was.
/// Schema `WorkflowSteeringPayload`.
public struct WorkflowSteering: Codable, Sendable, Equatable {
    /// The message of `POST /api/sessions/{id}/steer`.
    public var message: String
    /// The iteration, from 1.
    public var iteration: Int
    /// The hat worn in it.
    public var hat: String

    public init(message: String, iteration: Int, hat: String) {
        self.message = message
        self.iteration = iteration
        self.hat = hat
    }
}

/// A workflow event's payload, typed by its topic.
public enum WorkflowPayload: Sendable, Equatable {
    /// `iteration.started`, `session.paused` or `session.resumed`.
    case iteration(WorkflowIteration)
    /// `hat.changed`.
    case hatChange(WorkflowHatChange)
    /// `tool.called`.
    case toolCall(WorkflowToolCall)
    /// `loop.completed`.
    case loopCompletion(WorkflowLoopCompletion)
    /// `session.steered`.
    case steering(WorkflowSteering)
    /// A topic the simulation does not publish (admin may publish any), as sent.
    case other([String: JSONValue])
}

extension WorkflowEvent {
    /// The payload typed by the topic; `.other` for a topic not in `WorkflowTopic`.
    /// - Throws: `DecodingError` when a known topic's payload lacks its fields.
    public func typedPayload() throws -> WorkflowPayload {
        switch topic {
        case WorkflowTopic.iterationStarted, WorkflowTopic.sessionPaused, WorkflowTopic.sessionResumed:
            .iteration(try payload(as: WorkflowIteration.self))
        case WorkflowTopic.hatChanged: .hatChange(try payload(as: WorkflowHatChange.self))
        case WorkflowTopic.toolCalled: .toolCall(try payload(as: WorkflowToolCall.self))
        case WorkflowTopic.loopCompleted: .loopCompletion(try payload(as: WorkflowLoopCompletion.self))
        case WorkflowTopic.sessionSteered: .steering(try payload(as: WorkflowSteering.self))
        default: .other(payload)
        }
    }
}
