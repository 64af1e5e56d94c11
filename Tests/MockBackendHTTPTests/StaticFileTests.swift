import Foundation
import Logging
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// A public directory with a neighbour holding a secret, and symlinks pointing at it.
private struct StaticFixture {
    let base: URL
    var publicDirectory: String { base.appendingPathComponent("public").path }

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)")
        let files = FileManager.default
        let root = base.appendingPathComponent("public")
        try files.createDirectory(at: root.appendingPathComponent("docs"), withIntermediateDirectories: true)
        try files.createDirectory(at: base.appendingPathComponent("outside"), withIntermediateDirectories: true)
        try "<h1>home</h1>".write(to: root.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "body{}".write(to: root.appendingPathComponent("app.css"), atomically: true, encoding: .utf8)
        try "let x = 1".write(to: root.appendingPathComponent("app.js"), atomically: true, encoding: .utf8)
        try "{}".write(to: root.appendingPathComponent("data.json"), atomically: true, encoding: .utf8)
        try "<h1>docs</h1>".write(to: root.appendingPathComponent("docs/index.html"), atomically: true, encoding: .utf8)
        try "a b".write(to: root.appendingPathComponent("with space.txt"), atomically: true, encoding: .utf8)
        try "TOKEN=1".write(to: root.appendingPathComponent(".env"), atomically: true, encoding: .utf8)
        try "SECRET".write(to: base.appendingPathComponent("outside/secret.txt"), atomically: true, encoding: .utf8)
        try "SECRET".write(to: base.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try files.createSymbolicLink(
            atPath: root.appendingPathComponent("link-dir").path,
            withDestinationPath: base.appendingPathComponent("outside").path)
        try files.createSymbolicLink(
            atPath: root.appendingPathComponent("link-file.txt").path,
            withDestinationPath: base.appendingPathComponent("outside/secret.txt").path)
        try files.createSymbolicLink(
            atPath: root.appendingPathComponent("inside-link.css").path,
            withDestinationPath: root.appendingPathComponent("app.css").path)
    }

    func remove() { try? FileManager.default.removeItem(at: base) }

    func responder() throws -> RoutingResponder {
        let files = try #require(StaticFileHandler(directory: publicDirectory))
        return RoutingResponder(router: Router(), fallback: { try files.respond(to: $0) }, logger: Logger(label: "t"))
    }
}

@Suite("Static files")
struct StaticFileTests {
    @Test func servesFilesWithContentTypesAndIndex() async throws {
        let fixture = try StaticFixture()
        defer { fixture.remove() }
        try await withHTTPServer(responder: try fixture.responder()) { server in
            let client = try RawHTTPClient(server)
            let expectations: [(String, String, String)] = [
                ("/", "text/html; charset=utf-8", "<h1>home</h1>"),
                ("/index.html", "text/html; charset=utf-8", "<h1>home</h1>"),
                ("/docs/", "text/html; charset=utf-8", "<h1>docs</h1>"),
                ("/docs", "text/html; charset=utf-8", "<h1>docs</h1>"),
                ("/app.css", "text/css; charset=utf-8", "body{}"),
                ("/app.js", "text/javascript; charset=utf-8", "let x = 1"),
                ("/data.json", "application/json; charset=utf-8", "{}"),
                ("/with%20space.txt", "text/plain; charset=utf-8", "a b"),
                ("/inside-link.css", "text/css; charset=utf-8", "body{}"),
            ]
            for (path, type, body) in expectations {
                let response = try await client.get(path)
                #expect(response.status == 200, "\(path)")
                #expect(response.headers["Content-Type"] == type, "\(path)")
                #expect(response.text == body, "\(path)")
            }
            #expect(try await client.get("/missing.txt").status == 404)
        }
    }

    @Test func etagGives304() async throws {
        let fixture = try StaticFixture()
        defer { fixture.remove() }
        try await withHTTPServer(responder: try fixture.responder()) { server in
            let client = try RawHTTPClient(server)
            let first = try await client.get("/app.css")
            let etag = try #require(first.headers["ETag"])
            let cached = try await client.get("/app.css", headers: "If-None-Match: \(etag)\r\n")
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)
            #expect(cached.headers["ETag"] == etag)
            #expect(try await client.get("/app.css", headers: "If-None-Match: \"other\", W/\(etag)\r\n").status == 304)
            #expect(try await client.get("/app.css", headers: "If-None-Match: \"other\"\r\n").status == 200)
        }
    }

    static let escapes = [
        "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/.%2e/secret.txt", "/..%2fsecret.txt",
        "/%2e%2e%2fsecret.txt", "/docs/../../secret.txt", "/docs/%2e%2e/%2e%2e/secret.txt", "/..%5csecret.txt",
        "/..\\secret.txt", "/index.html%00.txt", "/%00", "//etc/passwd", "/link-dir/secret.txt", "/link-file.txt",
        "/.env", "/%2eenv", "/%c0%ae%c0%ae/secret.txt", "http://host/../secret.txt",
        "/" + String(repeating: "../", count: 20) + "etc/passwd",
    ]

    @Test("never leaves the public directory", arguments: escapes)
    func refusesEscapes(_ path: String) async throws {
        let fixture = try StaticFixture()
        defer { fixture.remove() }
        try await withHTTPServer(responder: try fixture.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try await client.readResponse()
            #expect([400, 404].contains(response.status), "\(path) → \(response.status)")
            #expect(!response.text.contains("SECRET"))
            #expect(!response.text.contains("root:"))
            #expect(!response.text.contains("TOKEN"))
        }
    }

    @Test func otherMethodsOnAFileAre405() async throws {
        let fixture = try StaticFixture()
        defer { fixture.remove() }
        try await withHTTPServer(responder: try fixture.responder()) { server in
            let client = try RawHTTPClient(server)
            try client.send("DELETE /app.css HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 405)
            #expect(response.headers["Allow"] == "GET, HEAD")
        }
    }
}

@Suite("Static files, compressed")
struct CompressedStaticFileTests {
    /// A large script is gzipped with a weak ETag, and that ETag still gets 304; an image
    /// is never compressed.
    @Test func largeTextFilesAreGzippedWithAWeakETagThatRevalidates() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-static-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let script = String(repeating: "console.log('mockbackend');\n", count: 200)
        try script.write(to: root.appendingPathComponent("app.js"), atomically: true, encoding: .utf8)
        try Data(repeating: 7, count: 4096).write(to: root.appendingPathComponent("logo.png"))
        let files = try #require(StaticFileHandler(directory: root.path))
        let responder = RoutingResponder(
            router: Router(), fallback: { try files.respond(to: $0) }, logger: Logger(label: "t"))
        try await withHTTPServer(responder: responder) { server in
            let gzip = "Accept-Encoding: gzip\r\n"
            let response = try await RawHTTPClient(server).get("/app.js", headers: gzip)
            #expect(response.headers["Content-Encoding"] == "gzip")
            #expect(String(decoding: try GzipInflater.gunzip(response.body), as: UTF8.self) == script)
            let etag = try #require(response.headers["ETag"])
            #expect(etag.hasPrefix("W/\""))
            let revalidated = try await RawHTTPClient(server).get(
                "/app.js", headers: gzip + "If-None-Match: \(etag)\r\n")
            #expect(revalidated.status == 304)
            let image = try await RawHTTPClient(server).get("/logo.png", headers: gzip)
            #expect(image.headers["Content-Encoding"] == nil)
            #expect(image.body.count == 4096)
        }
    }
}
