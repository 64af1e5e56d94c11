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
        /// The code and message of the `failed` event, once the generation has failed.
        var failure: (code: String, message: String)?
        var timer: SimulationClock.Timer?
        /// The signature of the image URL given to each session that read the completed
        /// status, by session id.
        var imageSignatures: [String: String] = [:]

        var isFinished: Bool { status.isFinished }
    }

    let id: String
    let userId: Int
    /// The session whose bearer token started it.
    let sessionId: String
    let prompt: String
    let createdAt: String
    let stream: EventStream
    let state = LockedValue(State())

    init(id: String, userId: Int, sessionId: String, prompt: String, stream: EventStream) {
        self.id = id
        self.userId = userId
        self.sessionId = sessionId
        self.prompt = prompt
        self.stream = stream
        createdAt = Timestamp.iso8601(Date())
    }

    /// Where it is now.
    var status: GenerationState { state.withLock { $0.status } }

    /// What `GET /api/generations/{id}` answers now to the session that started it.
    var snapshot: GenerationStatus { snapshot(for: sessionId) }

    /// What `GET /api/generations/{id}` answers now to `reader` (a session id): once
    /// completed, an image URL signed for that session, which loads while it lives.
    func snapshot(for reader: String) -> GenerationStatus {
        state.withLock { state in
            var imageUrl: String?
            if state.status == .completed {
                let signature = state.imageSignatures[reader] ?? SecureToken.hex()
                state.imageSignatures[reader] = signature
                imageUrl = "/" + GenerationPaths.signedImage(id: id, signature: signature)
            }
            return GenerationStatus(
                id: id, status: state.status, progress: Double(state.progress), createdAt: createdAt,
                completedAt: state.completedAt, error: state.failure?.message, errorCode: state.failure?.code,
                errorMessage: state.failure?.message, imageUrl: imageUrl)
        }
    }

    /// The session an image signature was given to; nil for one never given.
    func session(signedWith signature: String) -> String? {
        state.withLock { state in state.imageSignatures.first { $0.value == signature }?.key }
    }
}
