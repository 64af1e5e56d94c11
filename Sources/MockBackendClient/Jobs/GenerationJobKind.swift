import MockBackendAPI
import ServerSentEvents

/// What a completed generation reports.
public struct GenerationSummary: Sendable, Equatable {
    /// Where the image is, when the path that saw the end carried it.
    public var imageUrl: String?

    public init(imageUrl: String?) {
        self.imageUrl = imageUrl
    }
}

/// An image generation (`openapi/openapi.yaml`, tag `generations`): `progress`, then `completed` or `failed` on
/// `/api/generations/{id}/progress`; `GET /api/generations/{id}` for polling (every 5 s).
public enum GenerationJobKind: JobKind {
    public static func event(from event: ServerSentEvent) throws -> GenerationStreamEvent? {
        try GenerationStreamEvent.decode(type: event.effectiveType, data: event.data)
    }

    public static func outcome(of event: GenerationStreamEvent) -> JobOutcome<GenerationSummary>? {
        switch event {
        case .completed(let completed):
            .completed(GenerationSummary(imageUrl: completed.imageUrl))
        case .failed(let failed):
            .failed(JobFailure(code: failed.code, message: failed.error ?? failed.message))
        case .progress:
            nil
        }
    }

    public static func outcome(of status: GenerationStatus) -> JobOutcome<GenerationSummary>? {
        switch status.status {
        case .completed: .completed(GenerationSummary(imageUrl: status.imageUrl))
        case .failed: .failed(JobFailure(code: status.errorCode, message: status.errorMessage ?? status.error))
        default: nil
        }
    }

    /// The backend's `completed` event carries no image URL; the status does.
    public static func outcomeNeedsStatus(_ event: GenerationStreamEvent) -> Bool {
        if case .completed(let completed) = event { return completed.imageUrl == nil }
        return false
    }

    public static func progress(of event: GenerationStreamEvent) -> JobProgress? {
        switch event {
        case .progress(let progress):
            JobProgress(status: progress.status.rawValue, fraction: progress.progress / 100, message: progress.message)
        case .completed:
            JobProgress(status: GenerationState.completed.rawValue, fraction: 1)
        case .failed:
            nil
        }
    }

    public static func progress(of status: GenerationStatus) -> JobProgress {
        JobProgress(status: status.status.rawValue, fraction: status.progress / 100)
    }
}
