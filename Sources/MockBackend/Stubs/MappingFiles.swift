#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a directory of WireMock mapping files (`--mappings DIR`): every `*.json` file in
/// it and its subdirectories, in path order, each holding one mapping or
/// `{"mappings": [...]}` as WireMock's own export writes. Dotfiles are skipped, and so is a
/// `__files` directory: it holds the bodies `bodyFileName` names (`bodyFilesDirectory`).
///
/// All or nothing: the first bad file stops the load, naming the file and the field, e.g.
/// `orders/create.json: response.status must be 100-599`.
package enum MappingFiles {
    package static func load(
        directory: String, options: StubParseOptions = StubParseOptions(), newID: () -> String = { SecureToken.uuid() }
    ) throws(MappingFileError) -> [StubMapping] {
        let files: [String]
        do {
            files = try FileManager.default.subpathsOfDirectory(atPath: directory)
                .filter { path in
                    path.hasSuffix(".json")
                        && !path.split(separator: "/").contains { $0.hasPrefix(".") || $0 == bodyFilesName }
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
            var options = options
            if options.bodyFilesDirectory == nil { options.bodyFilesDirectory = bodyFilesDirectory(for: directory) }
            do throws(StubMappingError) {
                for mapping in try parse(Array(data), options: options, newID: newID) {
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

    static let bodyFilesName = "__files"

    /// The `__files` directory of the WireMock root `directory` belongs to: inside it (the
    /// root itself), or beside it (`root/mappings`); nil when there is none.
    package static func bodyFilesDirectory(for directory: String) -> String? {
        let trimmed = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        for candidate in [trimmed + "/" + bodyFilesName, trimmed + "/../" + bodyFilesName] {
            let type = (try? FileManager.default.attributesOfItem(atPath: candidate))?[.type] as? FileAttributeType
            if type == .typeDirectory { return URL(fileURLWithPath: candidate).standardizedFileURL.path }
        }
        return nil
    }

    /// One file's mappings: a single mapping, or `{"mappings": [...]}`.
    package static func parse(
        _ bytes: [UInt8], options: StubParseOptions = StubParseOptions(), newID: () -> String
    ) throws(StubMappingError) -> [StubMapping] {
        let json = try StubMapping.decodeJSON(bytes)
        // `"mappings": null` counts as absent, as every null field of a mapping does.
        guard case .object(let fields) = json, let list = fields["mappings"], list != .null else {
            return [try StubMapping.parse(json, options: options, newID: newID)]
        }
        let reader = try MappingFieldReader(json, path: "")
        try reader.refuseUnknownKeys(known: ["mappings", "meta"])
        guard case .array(let items) = list else {
            throw StubMappingError(field: "mappings", "must be an array")
        }
        var mappings: [StubMapping] = []
        for (index, item) in items.enumerated() {
            mappings.append(
                try StubMapping.parse(item, path: "mappings[\(index)]", options: options, newID: newID))
        }
        return mappings
    }
}
