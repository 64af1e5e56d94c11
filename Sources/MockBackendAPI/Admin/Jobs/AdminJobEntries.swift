/// An import job as `GET /__admin/imports` shows it: its polling snapshot, when it was
/// uploaded, and the name of its stream.
public struct AdminImport: Codable, Sendable, Equatable {
    public var jobId: String
    public var status: ImportJobState
    public var progress: Double
    public var processedRows: Int
    public var totalRows: Int
    public var successfulRows: Int
    public var failedRows: Int
    /// Why it failed, as its status says; only once it has.
    public var errorCode: String?
    public var errorMessage: String?
    public var createdAt: String
    /// `imports/<jobId>`: the name to push to or disconnect under `/__admin/streams`.
    public var stream: String

    public init(status: ImportStatus, createdAt: String, stream: String) {
        jobId = status.jobId
        self.status = status.status
        progress = status.progress
        processedRows = status.processedRows
        totalRows = status.totalRows
        successfulRows = status.successfulRows
        failedRows = status.failedRows
        errorCode = status.errorCode
        errorMessage = status.errorMessage
        self.createdAt = createdAt
        self.stream = stream
    }
}

/// A generation as `GET /__admin/generations` shows it: its polling snapshot, its owner and
/// prompt, and the name of its stream.
public struct AdminGeneration: Codable, Sendable, Equatable {
    public var id: String
    public var status: GenerationState
    public var progress: Double
    public var createdAt: String
    public var completedAt: String?
    public var error: String?
    /// Why it failed, as its status says; only once it has.
    public var errorCode: String?
    public var errorMessage: String?
    public var userId: Int
    public var prompt: String
    /// The name to push to or disconnect under `/__admin/streams`.
    public var stream: String

    public init(status: GenerationStatus, userId: Int, prompt: String, stream: String) {
        id = status.id
        self.status = status.status
        progress = status.progress
        createdAt = status.createdAt
        completedAt = status.completedAt
        error = status.error
        errorCode = status.errorCode
        errorMessage = status.errorMessage
        self.userId = userId
        self.prompt = prompt
        self.stream = stream
    }
}
