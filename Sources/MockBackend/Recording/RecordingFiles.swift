import MockBackendAPI

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a recording as WireMock lays one out: one mapping per file, named after the
/// request (`get-api-me-8c5db8b0.json`), into a directory `--mappings` then serves.
enum RecordingFiles {
    /// Writes every mapping, creating the directory if needed; returns how many files.
    @discardableResult
    static func write(_ mappings: [JSONValue], into directory: String) throws -> Int {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        for mapping in mappings {
            guard case .object(let fields) = mapping, case .string(let name) = fields["name"],
                case .string(let id) = fields["id"]
            else { continue }
            let path = directory + "/" + name + "-" + id.prefix(8) + ".json"
            try encoder.encode(mapping).write(to: URL(fileURLWithPath: path))
        }
        return mappings.count
    }
}
