import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a `MockBackendApp` serves besides its routes — the dashboard with the other static
/// files, and the OpenAPI document — and where each comes from. The startup block lists
/// only what is served.
public struct ServedFiles: Sendable, Equatable {
    /// Where a set of files comes from.
    public enum Source: Sendable, Equatable {
        /// The copy built into the module (`Public/`, `openapi/openapi.yaml`).
        case builtIn
        /// A folder or file on disk, read on each request (`--public-dir`, `--openapi-file`).
        case disk(String)
        /// A folder or file the configuration names that is not there: nothing is served.
        case missing(String)
    }

    /// The dashboard and other static files.
    public var publicFiles: Source
    /// Whether `GET /` answers with the dashboard (an `index.html` at the root).
    public var servesDashboard: Bool
    /// The document at `/openapi.yaml`.
    public var openAPIDocument: Source

    /// Whether `GET /openapi.yaml` answers with a document.
    public var servesOpenAPIDocument: Bool {
        if case .missing = openAPIDocument { return false }
        return true
    }
}

/// The static files a running app answers paths no route knows with: the built-in copy,
/// a live folder, or nothing when the configured folder does not exist.
enum StaticFiles: Sendable {
    case builtIn(EmbeddedFileHandler)
    case folder(StaticFileHandler)
    case missing(String)

    init(publicDirectory: String?) {
        guard let publicDirectory else {
            self = .builtIn(EmbeddedResources.dashboard)
            return
        }
        self = StaticFileHandler(directory: publicDirectory).map(Self.folder) ?? .missing(publicDirectory)
    }

    func respond(to request: HTTPRequest) throws -> HTTPResponse? {
        switch self {
        case .builtIn(let files): try files.respond(to: request)
        case .folder(let files): try files.respond(to: request)
        case .missing: nil
        }
    }

    /// Where the files come from, and whether the dashboard is there now.
    var source: (ServedFiles.Source, dashboard: Bool) {
        switch self {
        case .builtIn(let files): (.builtIn, files.file(at: "index.html") != nil)
        case .folder(let files): (.disk(files.root), FileManager.default.fileExists(atPath: files.root + "/index.html"))
        case .missing(let path): (.missing(path), false)
        }
    }
}

extension ServedFiles {
    init(staticFiles: StaticFiles, openAPIDocument: String?) {
        let (source, dashboard) = staticFiles.source
        publicFiles = source
        servesDashboard = dashboard
        if let openAPIDocument {
            let exists = FileManager.default.isReadableFile(atPath: openAPIDocument)
            self.openAPIDocument = exists ? .disk(openAPIDocument) : .missing(openAPIDocument)
        } else {
            self.openAPIDocument = .builtIn
        }
    }
}
