import Logging
import MockBackendHTTP

/// One line a `CapturingLogHandler` kept: its level, message and metadata as text.
struct CapturedLogRecord: Sendable {
    let level: Logger.Level
    let message: String
    let metadata: [String: String]
}

/// A swift-log handler that keeps every record in memory, for tests that check what the
/// server logged. Copies of the handler (a `Logger` is a value) share one record list.
struct CapturingLogHandler: LogHandler {
    /// The records of every copy of one handler, safe to read from any thread.
    final class Records: Sendable {
        private let records = LockedValue<[CapturedLogRecord]>([])

        var all: [CapturedLogRecord] { records.withLock { $0 } }

        func append(_ record: CapturedLogRecord) {
            records.withLock { $0.append(record) }
        }
    }

    let records: Records
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        records.append(
            CapturedLogRecord(
                level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }

    /// A logger whose records land in the returned list.
    static func logger() -> (Logger, Records) {
        let records = Records()
        return (Logger(label: "mockbackend.test", factory: { _ in CapturingLogHandler(records: records) }), records)
    }
}
