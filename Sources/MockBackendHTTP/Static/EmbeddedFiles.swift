#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A file compiled into the binary: its path, its bytes and a strong ETag.
///
/// Generated sources (`scripts/embed-resources.py`) build these from base64 text, which is
/// decoded once, when the value is made. The ETag is fixed at generation from the size
/// and SHA-256 of the bytes, so it changes exactly when the content does (RFC 9110 §8.8.3).
public struct EmbeddedFile: Sendable {
    /// The path relative to the served root, segments joined with `/`, no leading slash.
    public let path: String
    /// A strong entity tag, quotes included.
    public let etag: String
    public let bytes: [UInt8]

    public init(path: String, etag: String, bytes: [UInt8]) {
        self.path = path
        self.etag = etag
        self.bytes = bytes
    }

    /// Decodes `base64`, ignoring line breaks and indentation; a text that does not decode
    /// is a generator bug and stops the process.
    public init(path: String, etag: String, base64: String) {
        guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else {
            fatalError("The embedded file \(path) is not valid base64: regenerate it.")
        }
        self.init(path: path, etag: etag, bytes: Array(data))
    }

    /// The bytes as UTF-8 text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Serves a fixed set of files compiled into the binary (`EmbeddedFile`), with the rules of
/// `StaticFileHandler`: the same refusals of paths that try to leave the root (400), no
/// dotfiles, `index.html` for a folder, content types by extension, `ETag` and 304 for
/// `If-None-Match`, GET and HEAD only. Large text bodies are gzipped by the connection's
/// compression, as every response is.
public struct EmbeddedFileHandler: Sendable {
    private let files: [String: EmbeddedFile]

    public init(files: [EmbeddedFile]) {
        self.files = Dictionary(files.map { ($0.path, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Every path served, sorted.
    public var paths: [String] { files.keys.sorted() }

    /// The file at `path` (relative, no leading slash), if there is one.
    public func file(at path: String) -> EmbeddedFile? { files[path] }

    /// The file's response, nil when no file is there (so the caller answers 404), or a
    /// thrown 400 for a path that tries to leave the root.
    public func respond(to request: HTTPRequest) throws -> HTTPResponse? {
        guard let segments = try StaticFileHandler.safeSegments(request.path) else { return nil }
        let path = segments.joined(separator: "/")
        guard let file = files[path] ?? files[path.isEmpty ? "index.html" : path + "/index.html"] else {
            return nil
        }
        return StaticFileHandler.response(
            to: request, etag: file.etag, contentType: MediaTypes.forPath(file.path), body: { file.bytes })
    }
}
