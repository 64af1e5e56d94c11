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
        for (name, contents) in files(of: mappings) {
            try Data(contents).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        return mappings.count
    }

    /// The mappings as a tar of `mappings/<file>` entries, for a download.
    static func archive(_ mappings: [JSONValue], modified: Int) -> [UInt8] {
        var archive = TarArchive()
        for (name, contents) in files(of: mappings) {
            archive.add(path: "mappings/" + name, contents: contents, modified: modified)
        }
        return archive.finished
    }

    /// Each mapping's file name and pretty-printed JSON.
    static func files(of mappings: [JSONValue]) -> [(name: String, contents: [UInt8])] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return mappings.compactMap { mapping in
            guard case .object(let fields) = mapping, case .string(let name) = fields["name"],
                case .string(let id) = fields["id"], let data = try? encoder.encode(mapping)
            else { return nil }
            return (name + "-" + id.prefix(8) + ".json", Array(data))
        }
    }
}
