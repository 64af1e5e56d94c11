/// `POST /__admin/imports/{jobId}/fail`: the `error` event the job's stream ends with.
public struct ImportFailRequest: Codable, Sendable, Equatable {
    /// Nil for `IMPORT_FAILED`.
    public var code: String?
    /// Nil for "The import failed (admin)."
    public var message: String?

    public init(code: String? = nil, message: String? = nil) {
        self.code = code
        self.message = message
    }
}

/// `POST /__admin/generations/{id}/fail`: the `failed` event the generation's stream ends with.
public struct GenerationFailRequest: Codable, Sendable, Equatable {
    /// Nil for `GENERATION_FAILED`.
    public var code: String?
    /// Nil for "The generation failed (admin)."
    public var message: String?

    public init(code: String? = nil, message: String? = nil) {
        self.code = code
        self.message = message
    }
}
