#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a directory of WireMock mapping files (`--mappings DIR`): every `*.json` file in
/// it and its subdirectories, in path order, each holding one mapping or
/// `{"mappings": [...]}` as WireMock's own export writes. Dotfiles are skipped.
///
/// All or nothing: the first bad file stops the load, naming the file and the field, e.g.
/// `orders/create.json: response.status must be 100-599`.
package enum MappingFiles {
    package static func load(directory: String, newID: () -> String = { SecureToken.uuid() }) throws(MappingFileError)
        -> [StubMapping]
    {
        let files: [String]
        do {
            files = try FileManager.default.subpathsOfDirectory(atPath: directory)
                .filter { path in
                    path.hasSuffix(".json") && !path.split(separator: "/").contains { $0.hasPrefix(".") }
                }
                .sorted()
        } catch {
            throw MappingFileError(detail: "cannot read the mappings directory \(directory)")
        }
        var mappings: [StubMapping] = []
        var origins: [String: String] = [:]
        for file in files {
            guard let data = FileManager.default.contents(atPath: directory + "/" + file) else {
                throw MappingFileError(detail: "\(file): cannot be read")
            }
            do throws(StubMappingError) {
                for mapping in try parse(Array(data), newID: newID) {
                    if let other = origins[mapping.id] {
                        throw StubMappingError("id \(mapping.id) is also used in \(other)")
                    }
                    origins[mapping.id] = file
                    mappings.append(mapping)
                }
            } catch {
                throw MappingFileError(detail: "\(file): \(error.detail)")
            }
        }
        return mappings
    }

    /// One file's mappings: a single mapping, or `{"mappings": [...]}`.
    package static func parse(_ bytes: [UInt8], newID: () -> String) throws(StubMappingError) -> [StubMapping] {
        let json = try StubMapping.decodeJSON(bytes)
        // `"mappings": null` counts as absent, as every null field of a mapping does.
        guard case .object(let fields) = json, let list = fields["mappings"], list != .null else {
            return [try StubMapping.parse(json, newID: newID)]
        }
        let reader = try MappingFieldReader(json, path: "")
        try reader.refuseUnknownKeys(known: ["mappings", "meta"])
        guard case .array(let items) = list else {
            throw StubMappingError(field: "mappings", "must be an array")
        }
        var mappings: [StubMapping] = []
        for (index, item) in items.enumerated() {
            mappings.append(try StubMapping.parse(item, path: "mappings[\(index)]", newID: newID))
        }
        return mappings
    }
}
