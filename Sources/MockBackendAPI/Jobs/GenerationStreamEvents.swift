#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The event types of a generation progress stream (SPEC 4.3).
public enum GenerationEventType {
    public static let progress = "progress"
    public static let completed = "completed"
    public static let failed = "failed"
}

/// `event: progress`.
public struct GenerationProgressEvent: Codable, Sendable, Equatable {
    public var generationId: String
    public var status: GenerationState
    /// From 0 to 100.
    public var progress: Double
    /// A line for the UI ("Denoising", ...), when the backend sends one.
    public var message: String?

    public init(generationId: String, status: GenerationState, progress: Double, message: String? = nil) {
        self.generationId = generationId
        self.status = status
        self.progress = progress
        self.message = message
    }
}

/// `event: completed`, the last event of a successful generation. SPEC 4.3 does not fix
/// its fields, so every one is optional; the status endpoint has them all.
public struct GenerationCompletedEvent: Codable, Sendable, Equatable {
    public var generationId: String?
    public var status: GenerationState?
    public var progress: Double?
    public var imageUrl: String?
    public var completedAt: String?

    public init(
        generationId: String? = nil, status: GenerationState? = .completed, progress: Double? = 100,
        imageUrl: String? = nil, completedAt: String? = nil
    ) {
        self.generationId = generationId
        self.status = status
        self.progress = progress
        self.imageUrl = imageUrl
        self.completedAt = completedAt
    }
}

/// `event: failed`, the last event of a failed generation. SPEC 4.3 does not fix its
/// fields: the reason is read from `error`, else `message`, and `code` when present.
public struct GenerationFailedEvent: Codable, Sendable, Equatable {
    public var generationId: String?
    public var status: GenerationState?
    public var error: String?
    public var code: String?
    public var message: String?

    public init(
        generationId: String? = nil, status: GenerationState? = .failed, error: String? = nil, code: String? = nil,
        message: String? = nil
    ) {
        self.generationId = generationId
        self.status = status
        self.error = error
        self.code = code
        self.message = message
    }
}

/// One event of a generation progress stream, typed by its `event:` field.
public enum GenerationStreamEvent: Sendable, Equatable {
    case progress(GenerationProgressEvent)
    case completed(GenerationCompletedEvent)
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
