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
