import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One CSV import: its rows, counts and status, and the stream that tells them.
///
/// Invariant: counts change and events are published under one lock, so the polling
/// status and the last streamed event never disagree.
final class ImportJob: Sendable {
    struct State: Sendable {
        var status = ImportJobState.queued
        var processedRows = 0
        var successfulRows = 0
        var failedRows = 0
        /// The code and message of the `error` event, once the job has failed.
        var failure: (code: String, message: String)?
        /// Rows owed by the rate but not yet whole.
        var carry = 0.0
    }

    let id: String
    /// Whether each data row is good: same column count as the header, first column set.
    let rowIsValid: [Bool]
    let stream: EventStream
    /// When the upload was accepted (ISO 8601).
    let createdAt: String
    let state = LockedValue(State())

    init(id: String, rowIsValid: [Bool], stream: EventStream) {
        self.id = id
        self.rowIsValid = rowIsValid
        self.stream = stream
        createdAt = Timestamp.iso8601(Date())
    }

    var totalRows: Int { rowIsValid.count }

    /// What `GET /api/v2/imports/{jobId}` answers now.
    var snapshot: ImportStatus { state.withLock { snapshot(of: $0) } }

    func snapshot(of state: State) -> ImportStatus {
        ImportStatus(
            jobId: id, status: state.status, progress: progress(of: state),
            processedRows: state.processedRows, totalRows: totalRows, successfulRows: state.successfulRows,
            failedRows: state.failedRows, errorCode: state.failure?.code, errorMessage: state.failure?.message)
    }

    func progress(of state: State) -> Double {
        guard totalRows > 0 else { return 1 }
        return (Double(state.processedRows) / Double(totalRows) * 100).rounded() / 100
    }
}
