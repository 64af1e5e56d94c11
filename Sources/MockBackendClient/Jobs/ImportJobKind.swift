import MockBackendAPI
import ServerSentEvents

/// What a completed import reports.
public struct ImportSummary: Sendable, Equatable {
    public var totalRows: Int
    public var successfulRows: Int
    public var failedRows: Int

    public init(totalRows: Int, successfulRows: Int, failedRows: Int) {
        self.totalRows = totalRows
        self.successfulRows = successfulRows
        self.failedRows = failedRows
    }
}

/// A CSV import (`openapi/openapi.yaml`, tag `imports`): `started`, `progress`, then `complete` or `error` on
/// `/api/v2/imports/{jobId}/stream`; `GET /api/v2/imports/{jobId}` for polling. V1 carries
/// the same events as messages of its progress WebSocket (`GET /ws/progress?jobId=`).
public enum ImportJobKind: WebSocketJobKind {
    public static func event(from event: ServerSentEvent) throws -> ImportStreamEvent? {
        try ImportStreamEvent.decode(type: event.effectiveType, data: event.data)
    }

    /// A message of V1's progress WebSocket: `{"type":"progress",…}` (`V1ProgressMessage`).
    public static func event(fromMessage text: String) throws -> ImportStreamEvent? {
        try ImportStreamEvent.decode(v1Message: text)
    }

    public static func outcome(of event: ImportStreamEvent) -> JobOutcome<ImportSummary>? {
        switch event {
        case .complete(let complete):
            .completed(
                ImportSummary(
                    totalRows: complete.totalRows, successfulRows: complete.successfulRows,
                    failedRows: complete.failedRows))
        case .error(let error):
            .failed(JobFailure(code: error.code, message: error.message))
        case .started, .progress:
            nil
        }
    }

    public static func outcome(of status: ImportStatus) -> JobOutcome<ImportSummary>? {
        switch status.status {
        case .complete:
            .completed(
                ImportSummary(
                    totalRows: status.totalRows, successfulRows: status.successfulRows, failedRows: status.failedRows))
        case .error:
            .failed(JobFailure(code: status.errorCode, message: status.errorMessage))
        default:
            nil
        }
    }

    public static func progress(of event: ImportStreamEvent) -> JobProgress? {
        switch event {
        case .started(let started):
            JobProgress(status: started.status.rawValue, fraction: 0, completedUnits: 0, totalUnits: started.totalRows)
        case .progress(let progress):
            JobProgress(
                status: progress.status.rawValue, fraction: progress.progress, completedUnits: progress.processedRows,
                totalUnits: progress.totalRows)
        case .complete(let complete):
            JobProgress(
                status: complete.status.rawValue, fraction: 1, completedUnits: complete.totalRows,
                totalUnits: complete.totalRows)
        case .error:
            nil
        }
    }

    public static func progress(of status: ImportStatus) -> JobProgress {
        JobProgress(
            status: status.status.rawValue, fraction: status.progress, completedUnits: status.processedRows,
            totalUnits: status.totalRows)
    }
}
