/// The state of an image generation.
///
/// A string-backed value rather than a closed enum, so a state the client does not know
/// yet still decodes.
public struct GenerationState: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The state as the wire spells it.
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Accepted; no progress yet.
    public static let queued = GenerationState(rawValue: "queued")
    /// Under way; `progress` events tell how far.
    public static let processing = GenerationState(rawValue: "processing")
    /// The image is ready at `imageUrl`.
    public static let completed = GenerationState(rawValue: "completed")
    /// The generation failed; `errorCode` and `errorMessage` say why.
    public static let failed = GenerationState(rawValue: "failed")

    /// True once the generation will not change again: completed or failed.
    public var isFinished: Bool { self == .completed || self == .failed }

    /// The raw value.
    public var description: String { rawValue }
}

/// `GET /api/generations/{id}`: the polling fallback of the generation API, which clients
/// read every 5 s when the progress stream is unavailable. Every field is always there:
/// the absent ones are explicit nulls. Schema `Generation` in `openapi/openapi.yaml`.
public struct GenerationStatus: Codable, Sendable, Equatable {
    /// `gen_` and twelve hex digits.
    public var id: String
    /// Where the generation is.
    public var status: GenerationState
    /// From 0 to 100. The backend sends whole numbers.
    public var progress: Double
    /// ISO 8601 UTC.
    public var createdAt: String
    /// ISO 8601 UTC; null until the generation finishes.
    public var completedAt: String?
    /// Why the generation failed; null unless it did. The same text as `errorMessage`.
    public var error: String?
    /// Why the generation failed: the `code` of its stream's `failed` event
    /// (`GENERATION_FAILED`, ...); null unless it did.
    public var errorCode: String?
    /// Why the generation failed, for people: the `message` of its stream's `failed` event;
    /// null unless it did.
    public var errorMessage: String?
    /// Where the image is; null until the generation completes. A URL an image view can load
    /// without headers: signed with a `signature` query parameter that lasts as long as the
    /// session that read the status.
    public var imageUrl: String?

    public init(
        id: String, status: GenerationState, progress: Double, createdAt: String, completedAt: String? = nil,
        error: String? = nil, errorCode: String? = nil, errorMessage: String? = nil, imageUrl: String? = nil
    ) {
        self.id = id
        self.status = status
        self.progress = progress
        self.createdAt = createdAt
        self.completedAt = completedAt
        self.error = error
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.imageUrl = imageUrl
    }

    /// Absent values are sent as explicit nulls, so every field is always there.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encode(progress, forKey: .progress)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(completedAt, forKey: .completedAt)
        try container.encode(error, forKey: .error)
        try container.encode(errorCode, forKey: .errorCode)
        try container.encode(errorMessage, forKey: .errorMessage)
        try container.encode(imageUrl, forKey: .imageUrl)
    }

    /// True once the generation will not change again: completed or failed.
    public var isFinished: Bool { status.isFinished }

    /// True when the generation ended in failure.
    public var isFailed: Bool { status == .failed }
}
