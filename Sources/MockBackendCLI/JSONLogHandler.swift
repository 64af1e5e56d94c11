import Logging
import MockBackend
import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes one JSON object per line to standard output, through the log line queue: `ts`,
/// `level`, `label`, `message`, and the metadata as string fields. For log collectors that
/// parse lines.
struct JSONLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    private let label: String
    private let lines: LogLineQueue

    init(label: String, lines: LogLineQueue) {
        self.label = label
        self.lines = lines
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [String: String] = [
            "ts": Timestamp.iso8601(Date()),
            "level": event.level.rawValue,
            "label": label,
            "message": "\(event.message)",
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) where fields[key] == nil {
            fields[key] = "\(value)"
        }
        guard let data = try? JSONCoding.encoder.encode(fields) else { return }
        // One queued line each: lines from several threads never interleave.
        lines.enqueue(Array(data) + [0x0A])
    }
}
