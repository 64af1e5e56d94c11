/// The 202 answer to a CSV upload (`POST /api/v2/imports`, and V1's
/// `POST /api/import/csv-gemini`): the job is queued, and its stream is at `sseUrl`.
/// Schema `ImportAccepted` in `openapi/openapi.yaml`.
public struct ImportAccepted: Codable, Sendable, Equatable {
    /// `import_` and twelve hex digits.
    public var jobId: String
    /// `queued`.
    public var status: ImportJobState
    /// The job's stream, a path on the server (`/api/v2/imports/<jobId>/stream`), for V1
    /// uploads too.
    public var sseUrl: String
    /// Data rows in the file: what `totalRows` will say.
    public var estimatedRows: Int

    public init(jobId: String, status: ImportJobState = .queued, sseUrl: String, estimatedRows: Int) {
        self.jobId = jobId
        self.status = status
        self.sseUrl = sseUrl
        self.estimatedRows = estimatedRows
    }
}

/// The paths of the import API, relative to the server's base URL.
public enum ImportPaths {
    /// `POST`: multipart/form-data upload with a `file` part.
    public static let upload = "api/v2/imports"

    /// `POST`: V1's upload, kept for clients mid-migration; the same answer.
    public static let uploadV1 = "api/import/csv-gemini"

    /// `GET`: the job's status, for polling.
    public static func status(jobId: String) -> String { "api/v2/imports/\(jobId)" }

    /// `GET`: V1's status route; the same body.
    public static func statusV1(jobId: String) -> String { "v1/jobs/\(jobId)/status" }

    /// `GET`: the job's event stream.
    public static func stream(jobId: String) -> String { "api/v2/imports/\(jobId)/stream" }
}
