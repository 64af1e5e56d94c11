#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `event:` types of a generation progress stream (`GET /api/generations/{id}/progress`).
public enum GenerationEventType {
    /// `GenerationProgressEvent`.
    public static let progress = "progress"
    /// `GenerationCompletedEvent`.
    public static let completed = "completed"
    /// `GenerationFailedEvent`.
    public static let failed = "failed"
    /// `GenerationSessionEndedEvent`: the connection's session ended.
    public static let error = "error"
}

/// `event: progress`, after each step. Schema `GenerationProgressEvent` in
/// `openapi/openapi.yaml`.
public struct GenerationProgressEvent: WireEvent, Codable, Sendable, Equatable {
    /// `progress`.
    public static var eventType: String? { GenerationEventType.progress }

    /// The generation, `gen_` and twelve hex digits.
    public var generationId: String
    /// `processing`.
    public var status: GenerationState
    /// From 0 to 100. The backend sends whole numbers.
    public var progress: Double
    /// A line for the UI ("Composing", "Rendering", ...); the backend always sends one.
    public var message: String?

    public init(generationId: String, status: GenerationState, progress: Double, message: String? = nil) {
        self.generationId = generationId
        self.status = status
        self.progress = progress
        self.message = message
    }
}

/// `event: completed`, the last event of a successful generation. The backend sends
/// `generationId`, `status`, `progress` (100) and `message`, but no image URL: the status
/// endpoint has it. Every field is optional, so a backend that sends fewer still decodes.
public struct GenerationCompletedEvent: WireEvent, Codable, Sendable, Equatable {
    /// `completed`.
    public static var eventType: String? { GenerationEventType.completed }

    /// The generation, `gen_` and twelve hex digits.
    public var generationId: String?
    /// `completed`.
    public var status: GenerationState?
    /// 100.
    public var progress: Double?
    /// Where the image is, when the backend says it here (this one does not).
    public var imageUrl: String?
    /// ISO 8601 UTC, when the backend says it here (this one does not).
    public var completedAt: String?
    /// A line for the UI, e.g. `Done`.
    public var message: String?

    public init(
        generationId: String? = nil, status: GenerationState? = .completed, progress: Double? = 100,
        imageUrl: String? = nil, completedAt: String? = nil, message: String? = nil
    ) {
        self.generationId = generationId
        self.status = status
        self.progress = progress
        self.imageUrl = imageUrl
        self.completedAt = completedAt
        self.message = message
    }
}

/// `event: failed`, the last event of a failed generation. The backend sends
/// `generationId`, `status`, the `progress` reached, a stable `code` and the reason in
/// `message` (the polling status's `errorCode` and `errorMessage`); a client reads the
/// reason from `error`, else `message`, so a backend that spells it otherwise still decodes.
public struct GenerationFailedEvent: WireEvent, Codable, Sendable, Equatable {
    /// `failed`.
    public static var eventType: String? { GenerationEventType.failed }

    /// The generation, `gen_` and twelve hex digits.
    public var generationId: String?
    /// `failed`.
    public var status: GenerationState?
    /// The progress reached when it failed, from 0 to 100.
    public var progress: Double?
    /// Why it failed, when the backend spells it `error` (this one does not).
    public var error: String?
    /// A stable UPPER_SNAKE code such as `GENERATION_FAILED`.
    public var code: String?
    /// Why it failed: the `error` of the polling status.
    public var message: String?

    public init(
        generationId: String? = nil, status: GenerationState? = .failed, error: String? = nil, code: String? = nil,
        message: String? = nil, progress: Double? = nil
    ) {
        self.generationId = generationId
        self.status = status
        self.progress = progress
        self.error = error
        self.code = code
        self.message = message
    }
}

/// `event: error`, the last event a connection of a generation stream gets when the session
/// whose bearer token opened it ends (expired, logged out, terminated): the generation goes
/// on, but this connection is over, and a reconnect with that token answers 401. A client
/// logs in again and resumes with Last-Event-ID, or polls with the new token.
public struct GenerationSessionEndedEvent: WireEvent, Codable, Sendable, Equatable {
    /// `error`.
    public static var eventType: String? { GenerationEventType.error }

    /// `SESSION_EXPIRED`.
    public var code: String
    /// What happened, for people.
    public var message: String

    public init(code: String = "SESSION_EXPIRED", message: String = "The session has ended; log in again.") {
        self.code = code
        self.message = message
    }
}

/// One event of a generation progress stream, typed by its `event:` field.
public enum GenerationStreamEvent: Sendable, Equatable {
    /// `event: progress`.
    case progress(GenerationProgressEvent)
    /// `event: completed`.
    case completed(GenerationCompletedEvent)
    /// `event: failed`.
    case failed(GenerationFailedEvent)

    /// Decodes an event's data by its type; nil for a type this client does not know.
    /// - Throws: `DecodingError` when a known type's data does not match it.
    public static func decode(type: String, data: String) throws -> GenerationStreamEvent? {
        let bytes = Data(data.utf8)
        let decoder = JSONDecoder()
        switch type {
        case GenerationEventType.progress:
            return .progress(try decoder.decode(GenerationProgressEvent.self, from: bytes))
        case GenerationEventType.completed:
            return .completed(try decoder.decode(GenerationCompletedEvent.self, from: bytes))
        case GenerationEventType.failed:
            return .failed(try decoder.decode(GenerationFailedEvent.self, from: bytes))
        default:
            return nil
        }
    }
}
