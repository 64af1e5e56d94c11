/// The state of a CSV import, as its status and stream events spell it.
///
/// A string-backed value rather than a closed enum, so a state the client does not know
/// yet still decodes.
public struct ImportJobState: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The state as the wire spells it.
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Uploaded; processing has not started.
    public static let queued = ImportJobState(rawValue: "queued")
    /// Rows are being processed; `progress` events tell how far.
    public static let processing = ImportJobState(rawValue: "processing")
    /// Held by an operator; it resumes later.
    public static let paused = ImportJobState(rawValue: "paused")
    /// Every row was processed.
    public static let complete = ImportJobState(rawValue: "complete")
    /// The import failed; `errorCode` and `errorMessage` of the status, and the stream's
    /// `error` event, say why.
    public static let error = ImportJobState(rawValue: "error")

    /// True once the job will not change again: complete or failed.
    public var isFinished: Bool { self == .complete || self == .error }

    /// The raw value.
    public var description: String { rawValue }
}

/// `GET /api/v2/imports/{jobId}` (and V1's `GET /v1/jobs/{jobId}/status`): the state of an
/// import, the same one its stream tells event by event. Schema `ImportStatus` in
/// `openapi/openapi.yaml`.
public struct ImportStatus: Codable, Sendable, Equatable {
    /// `import_` and twelve hex digits.
    public var jobId: String
    /// Where the job is.
    public var status: ImportJobState
    /// From 0 to 1, to two decimals.
    public var progress: Double
    /// Rows processed so far, good and bad.
    public var processedRows: Int
    /// Data rows in the file (the header is not one).
    public var totalRows: Int
    /// Processed rows that were valid.
    public var successfulRows: Int
    /// Processed rows that were not: a wrong column count, or an empty first column.
    public var failedRows: Int
    /// Why the job failed: the `code` of its stream's `error` event (`IMPORT_FAILED`, ...).
    /// Only sent when `status` is `error`.
    public var errorCode: String?
    /// Why the job failed, for people: the `message` of its stream's `error` event. Only sent
    /// when `status` is `error`.
    public var errorMessage: String?

    public init(
        jobId: String, status: ImportJobState, progress: Double, processedRows: Int, totalRows: Int,
        successfulRows: Int, failedRows: Int, errorCode: String? = nil, errorMessage: String? = nil
    ) {
        self.jobId = jobId
        self.status = status
        self.progress = progress
        self.processedRows = processedRows
        self.totalRows = totalRows
        self.successfulRows = successfulRows
        self.failedRows = failedRows
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    /// True once the job will not change again: complete or failed.
    public var isFinished: Bool { status.isFinished }

    /// True when the job ended in failure; `errorCode` and `errorMessage` say why.
    public var isFailed: Bool { status == .error }
}
