import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `GET /api/generations/{id}` answers (the polling fallback).
public struct GenerationSnapshot: Codable, Sendable, Equatable {
    public var id: String
    /// `queued`, `processing`, `completed` or `failed`.
    public var status: String
    /// From 0 to 100.
    public var progress: Int
    public var createdAt: String
    public var completedAt: String?
    public var error: String?
    public var imageUrl: String?

    /// Absent values are sent as explicit nulls, so every field is always there.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encode(progress, forKey: .progress)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(completedAt, forKey: .completedAt)
        try container.encode(error, forKey: .error)
        try container.encode(imageUrl, forKey: .imageUrl)
    }
}

/// One image generation: its owner, progress and the stream that tells it.
///
/// Invariant: progress changes and events are published under one lock, so polling and
/// the stream never disagree.
final class Generation: Sendable {
    struct State: Sendable {
        var status = "queued"
        var progress = 0
        var completedAt: String?
        var error: String?
        var timer: SimulationClock.Timer?

        var isFinished: Bool { status == "completed" || status == "failed" }
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

    var snapshot: GenerationSnapshot { state.withLock { snapshot(of: $0) } }

    func snapshot(of state: State) -> GenerationSnapshot {
        GenerationSnapshot(
            id: id, status: state.status, progress: state.progress, createdAt: createdAt,
            completedAt: state.completedAt, error: state.error,
            imageUrl: state.status == "completed" ? "/api/generations/\(id)/image.png" : nil)
    }
}
