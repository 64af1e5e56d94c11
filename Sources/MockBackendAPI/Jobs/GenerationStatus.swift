/// The state of an image generation.
///
/// A string-backed value rather than a closed enum, so a state the client does not know
/// yet still decodes.
public struct GenerationState: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let queued = GenerationState(rawValue: "queued")
    public static let processing = GenerationState(rawValue: "processing")
    /// The image is ready at `imageUrl`.
    public static let completed = GenerationState(rawValue: "completed")
    /// The generation failed; `error` says why.
    public static let failed = GenerationState(rawValue: "failed")

    public var description: String { rawValue }
}

/// `GET /api/generations/{id}`: the polling fallback of the generation API (SPEC 4.3),
/// which clients read every 5 s when the progress stream is unavailable.
public struct GenerationStatus: Codable, Sendable, Equatable {
    public var id: String
    public var status: GenerationState
    /// From 0 to 100.
    public var progress: Double
    /// ISO 8601 UTC.
    public var createdAt: String
    /// ISO 8601 UTC; null until the generation finishes.
    public var completedAt: String?
    /// Why the generation failed; null unless it did.
    public var error: String?
    /// Where the image is; null until the generation completes.
    public var imageUrl: String?

    public init(
        id: String, status: GenerationState, progress: Double, createdAt: String, completedAt: String? = nil,
        error: String? = nil, imageUrl: String? = nil
    ) {
        self.id = id
        self.status = status
        self.progress = progress
        self.createdAt = createdAt
        self.completedAt = completedAt
        self.error = error
        self.imageUrl = imageUrl
    }

    /// True once the generation will not change again: completed or failed.
    public var isFinished: Bool { status == .completed || status == .failed }

    /// True when the generation ended in failure.
    public var isFailed: Bool { status == .failed }
}

/// The paths of the generation API, relative to the server's base URL. Every route takes
/// `Authorization: Bearer <token>` from `POST /api/auth/login`.
public enum GenerationPaths {
    /// `POST` `{"prompt", ...}`: starts a generation.
    public static let create = "api/generations"

    /// `GET`: the generation's status, for polling.
    public static func status(id: String) -> String { "api/generations/\(id)" }

    /// `GET`: the generation's progress stream.
    public static func progress(id: String) -> String { "api/generations/\(id)/progress" }
}
