import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `GET /api/v2/imports/{jobId}` (and V1's status route) answers: the job's state,
/// which its stream reflects event by event.
public struct ImportSnapshot: Codable, Sendable, Equatable {
    public var jobId: String
    /// `queued`, `processing`, `paused`, `complete` or `error`.
    public var status: String
    /// From 0 to 1, two decimals.
    public var progress: Double
    public var processedRows: Int
    public var totalRows: Int
    public var successfulRows: Int
    public var failedRows: Int
}

/// One CSV import: its rows, counts and status, and the stream that tells them.
///
/// Invariant: counts change and events are published under one lock, so the polling
/// snapshot and the last streamed event never disagree.
final class ImportJob: Sendable {
    enum Status: String, Sendable {
        case queued, processing, paused, complete, error

        var isFinished: Bool { self == .complete || self == .error }
    }

    struct State: Sendable {
        var status = Status.queued
        var processedRows = 0
        var successfulRows = 0
        var failedRows = 0
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

    var snapshot: ImportSnapshot { state.withLock { snapshot(of: $0) } }

    func snapshot(of state: State) -> ImportSnapshot {
        ImportSnapshot(
            jobId: id, status: state.status.rawValue, progress: progress(of: state),
            processedRows: state.processedRows, totalRows: totalRows, successfulRows: state.successfulRows,
            failedRows: state.failedRows)
    }

    func progress(of state: State) -> Double {
        guard totalRows > 0 else { return 1 }
        return (Double(state.processedRows) / Double(totalRows) * 100).rounded() / 100
    }
}
