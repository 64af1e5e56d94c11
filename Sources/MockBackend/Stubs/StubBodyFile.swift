#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `bodyFileName`: a response body kept in a file of the WireMock root's `__files`
/// directory, read once when the mapping loads. Only a file inside that directory is read:
/// the name is a path relative to it, never a template, never leading out of it.
enum StubBodyFile {
    /// A body file at most this large (a recording of a big answer still fits).
    static let maximumBytes = 32 * 1024 * 1024

    static func read(
        _ name: String, field: String, options: StubParseOptions
    ) throws(StubMappingError) -> [UInt8] {
        guard !name.contains("{{") else {
            throw StubMappingError(
                field: field, "is a template; mockbackend reads only the body file a mapping names as it is")
        }
        guard let directory = options.bodyFilesDirectory else {
            throw StubMappingError(
                field: field,
                "needs a __files directory beside or inside the --mappings directory; none is there (or put the body inline as body, base64Body or jsonBody)"
            )
        }
        let segments = name.split(separator: "/", omittingEmptySubsequences: true)
        guard !name.hasPrefix("/"), !segments.isEmpty, !segments.contains(where: { $0 == ".." || $0 == "." }),
            !name.contains("\0")
        else {
            throw StubMappingError(field: field, "must be a path inside __files, without '..' or a leading '/'")
        }
        let path = directory + "/" + segments.joined(separator: "/")
        // A link inside __files that leads out of it is not followed.
        let resolvedDirectory = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        guard URL(fileURLWithPath: path).resolvingSymlinksInPath().path.hasPrefix(resolvedDirectory + "/") else {
            throw StubMappingError(field: field, "names \(name), which leads out of \(directory)")
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let attributes, attributes[.type] as? FileAttributeType == .typeRegular else {
            throw StubMappingError(field: field, "names \(name), which is not a file in \(directory)")
        }
        if let size = attributes[.size] as? Int, size > maximumBytes {
            throw StubMappingError(field: field, "names a file of \(size) bytes; at most \(maximumBytes) are allowed")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StubMappingError(field: field, "names \(name), which cannot be read")
        }
        return Array(data)
    }
}
