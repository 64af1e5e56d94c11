import Logging
import MockBackend
import MockBackendHTTP
import MockBackendSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one JSON object per line to standard output: `ts`, `level`, `label`, `message`,
/// and the metadata as string fields. For log collectors that parse lines.
struct JSONLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    private let label: String
    private static let lock = LockedValue(())

    init(label: String) {
        self.label = label
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
        Self.lock.withLock { _ in
            // One write(2) per line, so lines from several threads never interleave.
            _ = (data + Data([0x0A])).withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        }
    }
}
