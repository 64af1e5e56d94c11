import Foundation
import MockBackendTesting
import TestSupport
import Testing

/// The binary carries the dashboard and the OpenAPI document: started from a folder with
/// nothing in it, it serves them all the same, and its startup block lists only what it serves.
@Suite("The mockbackend binary on its own", .serialized)
struct SelfContainedBinaryTests {
    /// An empty folder of its own, removed by `body`'s end.
    static func inEmptyFolder<Result>(_ body: (String) async throws -> Result) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder.path)
    }

    @Test func startedFromAnEmptyFolderItServesTheDashboardAndTheDocument() async throws {
        try await Self.inEmptyFolder { folder in
            let server = try ServerProcess(["--port", "0"], directory: folder)
            let port = try await server.waitForListening()
            let index = try await RawHTTPClient(port: port).get("/")
            #expect(index.status == 200)
            #expect(index.text.contains("<title>mockbackend</title>"))
            let module = try await RawHTTPClient(port: port).get("/js/admin-api.js")
            #expect(module.status == 200)
            #expect(module.headers["Content-Type"] == "text/javascript; charset=utf-8")
            let document = try await RawHTTPClient(port: port).get("/openapi.yaml")
            #expect(document.status == 200)
            #expect(document.text.hasPrefix("openapi: 3.1"))
            #expect(try await RawHTTPClient(port: port).get("/health").status == 200)
            #expect(try await RawHTTPClient(port: port).get("/__admin/sessions").status == 200)
            let banner = server.text
            #expect(banner.contains("dashboard  http://127.0.0.1:\(port)/"))
            #expect(banner.contains("openapi    http://127.0.0.1:\(port)/openapi.yaml"))
            #expect(!banner.contains("public dir"))
            #expect(!banner.contains("warning"))
            server.process.terminate()
            _ = await server.waitForExit(timeout: .seconds(2))
        }
    }

    @Test func aPublicDirServesALiveFolderAndTheBannerSaysSo() async throws {
        try await Self.inEmptyFolder { folder in
            let page = folder + "/page.html"
            try "<p>one</p>".write(toFile: page, atomically: true, encoding: .utf8)
            let server = try ServerProcess(["--port", "0", "--public-dir", folder], directory: folder)
            let port = try await server.waitForListening()
            #expect(try await RawHTTPClient(port: port).get("/page.html").text == "<p>one</p>")
            try "<p>two</p>".write(toFile: page, atomically: true, encoding: .utf8)
            #expect(try await RawHTTPClient(port: port).get("/page.html").text == "<p>two</p>")
            #expect(try await RawHTTPClient(port: port).get("/").status == 404)
            let banner = server.text
            #expect(banner.contains("public dir"))
            #expect(banner.contains("no index.html: no dashboard"))
            #expect(!banner.contains("dashboard  http"))
            #expect(banner.contains("openapi    http://127.0.0.1:\(port)/openapi.yaml"))
            server.process.terminate()
            _ = await server.waitForExit(timeout: .seconds(2))
        }
    }

    @Test func theBannerLeavesOutWhatIsNotThere() async throws {
        try await Self.inEmptyFolder { folder in
            let server = try ServerProcess(
                ["--port", "0", "--public-dir", "Public", "--openapi-file", "openapi/openapi.yaml"], directory: folder)
            let port = try await server.waitForListening()
            let banner = server.text
            #expect(!banner.contains("dashboard  http"))
            #expect(!banner.contains("openapi    http"))
            #expect(banner.contains("warning    --public-dir Public not found"))
            #expect(banner.contains("warning    --openapi-file openapi/openapi.yaml not found"))
            #expect(try await RawHTTPClient(port: port).get("/").status == 404)
            #expect(try await RawHTTPClient(port: port).get("/openapi.yaml").status == 404)
            server.process.terminate()
            _ = await server.waitForExit(timeout: .seconds(2))
        }
    }
}
