/// The state of a CSV import, as its status and stream events spell it.
///
/// A string-backed value rather than a closed enum, so a state the client does not know
/// yet still decodes.
public struct ImportJobState: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let queued = ImportJobState(rawValue: "queued")
    public static let processing = ImportJobState(rawValue: "processing")
    /// Held by an operator; it resumes later.
    public static let paused = ImportJobState(rawValue: "paused")
    /// Every row was processed.
    public static let complete = ImportJobState(rawValue: "complete")
    /// The import failed; its stream's `error` event says why.
    public static let error = ImportJobState(rawValue: "error")

    public var description: String { rawValue }
}

/// `GET /api/v2/imports/{jobId}` (and V1's `GET /v1/jobs/{jobId}/status`): the state of an
/// import, the same one its stream tells event by event (SPEC 4.2).
public struct ImportStatus: Codable, Sendable, Equatable {
    public var jobId: String
    public var status: ImportJobState
    /// From 0 to 1.
    public var progress: Double
    public var processedRows: Int
    public var totalRows: Int
    public var successfulRows: Int
    public var failedRows: Int

    public init(
        jobId: String, status: ImportJobState, progress: Double, processedRows: Int, totalRows: Int,
        successfulRows: Int, failedRows: Int
    ) {
        self.jobId = jobId
        self.status = status
        self.progress = progress
        self.processedRows = processedRows
        self.totalRows = totalRows
        self.successfulRows = successfulRows
        self.failedRows = failedRows
    }

    /// True once the job will not change again: complete or failed.
    public var isFinished: Bool { status == .complete || status == .error }

    /// True when the job ended in failure. The status carries no reason: only the stream's
    /// `error` event has a code and message.
    public var isFailed: Bool { status == .error }
}

/// The paths of the import API, relative to the server's base URL.
public enum ImportPaths {
    /// `POST`: multipart/form-data upload with a `file` part.
    public static let upload = "api/v2/imports"

    /// `GET`: the job's status, for polling.
    public static func status(jobId: String) -> String { "api/v2/imports/\(jobId)" }

    /// `GET`: the job's event stream.
    public static func stream(jobId: String) -> String { "api/v2/imports/\(jobId)/stream" }
}
