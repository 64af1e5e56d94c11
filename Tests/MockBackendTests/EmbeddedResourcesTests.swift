import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// The dashboard and the OpenAPI document built into the module: served with no files on
/// disk, with the rules of the static file handler, and the same bytes as `Public/` and
/// `openapi/openapi.yaml` (`scripts/embed-resources.py` regenerates them).
@Suite("Embedded dashboard and OpenAPI document")
struct EmbeddedResourcesTests {
    /// Every file under `Public/` but dotfiles, relative to it, with its bytes.
    static func publicFilesOnDisk() throws -> [String: [UInt8]] {
        let root = URL(fileURLWithPath: PackageRoot.path + "/Public")
        var files: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true,
                !url.lastPathComponent.hasPrefix(".")
            else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            files[relative] = Array(try Data(contentsOf: url))
        }
        return files
    }

    @Test func theBuiltInCopiesMatchTheFilesOnDisk() throws {
        let onDisk = try Self.publicFilesOnDisk()
        #expect(EmbeddedResources.dashboard.paths == onDisk.keys.sorted(), "run scripts/embed-resources.py")
        for (path, bytes) in onDisk {
            #expect(
                EmbeddedResources.dashboard.file(at: path)?.bytes == bytes, "\(path): run scripts/embed-resources.py")
        }
        let document = Array(try Data(contentsOf: URL(fileURLWithPath: PackageRoot.path + "/openapi/openapi.yaml")))
        #expect(EmbeddedResources.openAPIDocument.bytes == document, "run scripts/embed-resources.py")
    }

    @Test func theDefaultConfigurationServesTheBuiltInDashboardAndDocument() async throws {
        try await withRunningServer { server in
            let served = server.app.servedFiles
            #expect(served.publicFiles == .builtIn && served.openAPIDocument == .builtIn)
            #expect(served.servesDashboard && served.servesOpenAPIDocument)
            let index = try await server.connect().get("/")
            #expect(index.status == 200)
            #expect(index.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(index.text.contains("<title>mockbackend</title>"))
            let module = try await server.connect().get("/js/live-feed.js")
            #expect(module.status == 200)
            #expect(module.headers["Content-Type"] == "text/javascript; charset=utf-8")
            #expect(module.body == EmbeddedResources.dashboard.file(at: "js/live-feed.js")?.bytes)
            let document = try await server.connect().get("/openapi.yaml")
            #expect(document.status == 200)
            #expect(document.text.hasPrefix("openapi: 3.1"))
            #expect(try await server.connect().get("/health").status == 200)
        }
    }

    @Test func embeddedFilesFollowTheStaticFileRules() async throws {
        try await withRunningServer { server in
            let first = try await server.connect().get("/style.css")
            let etag = try #require(first.headers["ETag"])
            #expect(etag.hasPrefix("\""))
            let again = try await server.connect().get("/style.css", headers: "If-None-Match: \(etag)\r\n")
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            #expect(try await server.connect().get("/js/../index.html").status == 400)
            #expect(try await server.connect().get("/js/%2e%2e/index.html").status == 400)
            #expect(try await server.connect().get("/.git/config").status == 404)
            #expect(try await server.connect().get("/js/missing.js").status == 404)
            #expect(try await server.request("POST", "/index.html", body: "{}").status == 405)
            let zipped = try await server.connect().get("/app.js", headers: "Accept-Encoding: gzip\r\n")
            #expect(zipped.headers["Content-Encoding"] == "gzip")
            #expect(zipped.headers["ETag"]?.hasPrefix("W/") == true)
            let icon = try await server.connect().get("/favicon.png", headers: "Accept-Encoding: gzip\r\n")
            #expect(icon.status == 200)
            #expect(icon.headers["Content-Type"] == "image/png")
            #expect(icon.headers["Content-Encoding"] == nil)
            #expect(icon.body.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            let head = try await server.request("HEAD", "/index.html")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
        }
    }

    /// `--public-dir`: a live folder, read on each request.
    @Test func aPublicDirectoryIsServedLive() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("public-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("js"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let module = folder.appendingPathComponent("js/app.js")
        try "export const version = 1;\n".write(to: module, atomically: true, encoding: .utf8)
        var configuration = MockBackendConfiguration.forTesting()
        configuration.publicDirectory = folder.path
        try await withRunningServer(configuration) { server in
            let served = server.app.servedFiles
            #expect(served.servesDashboard == false)
            #expect(try await server.connect().get("/").status == 404)
            #expect(try await server.connect().get("/js/app.js").text == "export const version = 1;\n")
            try "export const version = 2;\n".write(to: module, atomically: true, encoding: .utf8)
            #expect(try await server.connect().get("/js/app.js").text == "export const version = 2;\n")
            try "<title>edited</title>".write(
                to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
            #expect(server.app.servedFiles.servesDashboard)
            #expect(try await server.connect().get("/").text == "<title>edited</title>")
            #expect(try await server.connect().get("/openapi.yaml").status == 200)
        }
    }

    @Test func aMissingPublicDirectoryServesNoFiles() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.publicDirectory = "/nonexistent/public"
        configuration.openAPIDocument = "/nonexistent/openapi.yaml"
        try await withRunningServer(configuration) { server in
            let served = server.app.servedFiles
            #expect(served.publicFiles == ServedFiles.Source.missing("/nonexistent/public"))
            #expect(served.servesDashboard == false)
            #expect(served.servesOpenAPIDocument == false)
            let index = try await server.connect().get("/")
            #expect(index.status == 404)
        }
    }
}
