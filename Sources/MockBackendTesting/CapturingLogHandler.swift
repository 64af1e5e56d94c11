import Logging
import MockBackendHTTP
import MockBackendSupport

/// One line a `CapturingLogHandler` kept: its level, message and metadata as text.
public struct CapturedLogRecord: Sendable {
    public let level: Logger.Level
    public let message: String
    public let metadata: [String: String]
}

/// A swift-log handler that keeps every record in memory, for tests that check what the
/// server logged. Copies of the handler (a `Logger` is a value) share one record list.
public struct CapturingLogHandler: LogHandler {
    /// The records of every copy of one handler, safe to read from any thread.
    public final class Records: Sendable {
        private let records = LockedValue<[CapturedLogRecord]>([])

        public init() {}

        /// Every record so far, in the order they were logged.
        public var all: [CapturedLogRecord] { records.withLock { $0 } }

        func append(_ record: CapturedLogRecord) {
            records.withLock { $0.append(record) }
        }
    }

    public let records: Records
    public var logLevel: Logger.Level = .trace
    public var metadata: Logger.Metadata = [:]

    public init(records: Records) {
        self.records = records
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        records.append(
            CapturedLogRecord(
                level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }

    /// A logger whose records land in the returned list.
    public static func logger() -> (Logger, Records) {
        let records = Records()
        return (Logger(label: "mockbackend.test", factory: { _ in CapturingLogHandler(records: records) }), records)
    }
}
