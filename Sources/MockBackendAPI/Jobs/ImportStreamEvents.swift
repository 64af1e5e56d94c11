#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `event:` types of an import stream (`GET /api/v2/imports/{jobId}/stream`).
public enum ImportEventType {
    /// `ImportStartedEvent`.
    public static let started = "started"
    /// `ImportProgressEvent`.
    public static let progress = "progress"
    /// `ImportCompleteEvent`.
    public static let complete = "complete"
    /// `ImportErrorEvent`.
    public static let error = "error"
}

/// `event: started`: processing began. Schema `ImportStartedEvent` in `openapi/openapi.yaml`.
public struct ImportStartedEvent: WireEvent, Codable, Sendable, Equatable {
    /// `started`.
    public static var eventType: String? { ImportEventType.started }

    /// The job, `import_` and twelve hex digits.
    public var jobId: String
    /// `processing`.
    public var status: ImportJobState
    /// Data rows in the file.
    public var totalRows: Int

    public init(jobId: String, status: ImportJobState = .processing, totalRows: Int) {
        self.jobId = jobId
        self.status = status
        self.totalRows = totalRows
    }
}

/// `event: progress`, after each processing step. The backend sends the counts under two
/// spellings, `processedRows`/`totalRows` and `processedCount`/`totalCount`, because clients
/// in the field read one or the other; this type decodes from either and encodes both.
public struct ImportProgressEvent: WireEvent, Codable, Sendable, Equatable {
    /// `progress`.
    public static var eventType: String? { ImportEventType.progress }

    /// The job, `import_` and twelve hex digits.
    public var jobId: String
    /// `processing`.
    public var status: ImportJobState
    /// From 0 to 1, to two decimals.
    public var progress: Double
    /// Rows processed so far; also sent as `processedCount`.
    public var processedRows: Int
    /// Data rows in the file; also sent as `totalCount`.
    public var totalRows: Int

    private enum CodingKeys: String, CodingKey {
        case jobId, status, progress, processedRows, totalRows, processedCount, totalCount
    }

    public init(
        jobId: String, status: ImportJobState = .processing, progress: Double, processedRows: Int, totalRows: Int
    ) {
        self.jobId = jobId
        self.status = status
        self.progress = progress
        self.processedRows = processedRows
        self.totalRows = totalRows
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        jobId = try container.decode(String.self, forKey: .jobId)
        status = try container.decodeIfPresent(ImportJobState.self, forKey: .status) ?? .processing
        progress = try container.decode(Double.self, forKey: .progress)
        processedRows =
            try container.decodeIfPresent(Int.self, forKey: .processedRows)
            ?? container.decode(Int.self, forKey: .processedCount)
        totalRows =
            try container.decodeIfPresent(Int.self, forKey: .totalRows)
            ?? container.decode(Int.self, forKey: .totalCount)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jobId, forKey: .jobId)
        try container.encode(status, forKey: .status)
        try container.encode(progress, forKey: .progress)
        try container.encode(processedRows, forKey: .processedRows)
        try container.encode(totalRows, forKey: .totalRows)
        try container.encode(processedRows, forKey: .processedCount)
        try container.encode(totalRows, forKey: .totalCount)
    }
}

/// `event: complete`: the last event of a successful import.
public struct ImportCompleteEvent: WireEvent, Codable, Sendable, Equatable {
    /// `complete`.
    public static var eventType: String? { ImportEventType.complete }

    /// The job, `import_` and twelve hex digits.
    public var jobId: String
    /// `complete`.
    public var status: ImportJobState
    /// Data rows in the file.
    public var totalRows: Int
    /// Rows that were valid.
    public var successfulRows: Int
    /// Rows that were not.
    public var failedRows: Int

    public init(
        jobId: String, status: ImportJobState = .complete, totalRows: Int, successfulRows: Int, failedRows: Int
    ) {
        self.jobId = jobId
        self.status = status
        self.totalRows = totalRows
        self.successfulRows = successfulRows
        self.failedRows = failedRows
    }
}

/// `event: error`: the last event of a failed import. It has no `status`; the polling
/// status says `error`.
public struct ImportErrorEvent: WireEvent, Codable, Sendable, Equatable {
    /// `error`.
    public static var eventType: String? { ImportEventType.error }

    /// The job, `import_` and twelve hex digits.
    public var jobId: String
    /// A stable UPPER_SNAKE code such as `IMPORT_FAILED`.
    public var code: String
    /// Why, for people.
    public var message: String

    public init(jobId: String, code: String, message: String) {
        self.jobId = jobId
        self.code = code
        self.message = message
    }
}

/// One event of an import stream, typed by its `event:` field.
public enum ImportStreamEvent: Sendable, Equatable {
    /// `event: started`.
    case started(ImportStartedEvent)
    /// `event: progress`.
    case progress(ImportProgressEvent)
    /// `event: complete`.
    case complete(ImportCompleteEvent)
    /// `event: error`.
    case error(ImportErrorEvent)

    /// Decodes an event's data by its type; nil for a type this client does not know.
    /// - Throws: `DecodingError` when a known type's data does not match it.
    public static func decode(type: String, data: String) throws -> ImportStreamEvent? {
        let bytes = Data(data.utf8)
        let decoder = JSONDecoder()
        switch type {
        case ImportEventType.started: return .started(try decoder.decode(ImportStartedEvent.self, from: bytes))
        case ImportEventType.progress: return .progress(try decoder.decode(ImportProgressEvent.self, from: bytes))
        case ImportEventType.complete: return .complete(try decoder.decode(ImportCompleteEvent.self, from: bytes))
        case ImportEventType.error: return .error(try decoder.decode(ImportErrorEvent.self, from: bytes))
        default: return nil
        }
    }
}
