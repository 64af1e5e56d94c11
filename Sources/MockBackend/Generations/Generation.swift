import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One image generation: its owner, progress and the stream that tells it.
///
/// Invariant: progress changes and events are published under one lock, so polling and
/// the stream never disagree.
final class Generation: Sendable {
    struct State: Sendable {
        var status = GenerationState.queued
        /// From 0 to 100, in whole steps.
        var progress = 0
        var completedAt: String?
        var error: String?
        var timer: SimulationClock.Timer?

        var isFinished: Bool { status.isFinished }
    }

    let id: String
    let userId: Int
    let prompt: String
    let createdAt: String
    let stream: EventStream
    let state = LockedValue(State())

    init(id: String, userId: Int, prompt: String, stream: EventStream) {
        self.id = id
        self.userId = userId
        self.prompt = prompt
        self.stream = stream
        createdAt = Timestamp.iso8601(Date())
    }

    /// What `GET /api/generations/{id}` answers now.
    var snapshot: GenerationStatus { state.withLock { snapshot(of: $0) } }

    func snapshot(of state: State) -> GenerationStatus {
        GenerationStatus(
            id: id, status: state.status, progress: Double(state.progress), createdAt: createdAt,
            completedAt: state.completedAt, error: state.error,
            imageUrl: state.status == .completed ? "/" + GenerationPaths.image(id: id) : nil)
    }
}
