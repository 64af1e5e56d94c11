import Logging
import MockBackendHTTP
import MockBackendSupport

/// One line a `CapturingLogHandler` kept: its level, message and metadata as text.
package struct CapturedLogRecord: Sendable {
    package let level: Logger.Level
    package let message: String
    package let metadata: [String: String]
}

/// A swift-log handler that keeps every record in memory, for tests that check what the
/// server logged. Copies of the handler (a `Logger` is a value) share one record list.
package struct CapturingLogHandler: LogHandler {
    /// The records of every copy of one handler, safe to read from any thread.
    package final class Records: Sendable {
        private let records = LockedValue<[CapturedLogRecord]>([])

        package init() {}

        /// Every record so far, in the order they were logged.
        package var all: [CapturedLogRecord] { records.withLock { $0 } }

        func append(_ record: CapturedLogRecord) {
            records.withLock { $0.append(record) }
        }
    }

    package let records: Records
    package var logLevel: Logger.Level = .trace
    package var metadata: Logger.Metadata = [:]

    package init(records: Records) {
        self.records = records
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        records.append(
            CapturedLogRecord(
                level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }

    /// A logger whose records land in the returned list.
    package static func logger() -> (Logger, Records) {
        let records = Records()
        return (Logger(label: "mockbackend.test", factory: { _ in CapturingLogHandler(records: records) }), records)
    }
}
