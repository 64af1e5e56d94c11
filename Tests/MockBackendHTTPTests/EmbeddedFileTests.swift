import Foundation
import Logging
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// Files compiled into the binary: bytes that survive their base64 form whatever they are,
/// served by `EmbeddedFileHandler` with the static handler's rules.
@Suite("Embedded files")
struct EmbeddedFileTests {
    /// Every byte value, and the text of a file in a folder with an index.
    static let files = [
        EmbeddedFile(
            path: "index.html", etag: "\"d-1\"", base64: Data("<h1>home</h1>".utf8).base64EncodedString()),
        EmbeddedFile(path: "docs/index.html", etag: "\"d-2\"", bytes: Array("<h1>docs</h1>".utf8)),
        EmbeddedFile(
            path: "img/all.png", etag: "\"100-3\"",
            base64: Data((0...255).map { UInt8($0) }).base64EncodedString(options: .lineLength76Characters)),
    ]

    static func responder() -> RoutingResponder {
        let files = EmbeddedFileHandler(files: files)
        return RoutingResponder(router: Router(), fallback: { try files.respond(to: $0) }, logger: Logger(label: "t"))
    }

    @Test func base64WithLineBreaksDecodesToTheSameBytes() {
        let handler = EmbeddedFileHandler(files: Self.files)
        #expect(handler.file(at: "img/all.png")?.bytes == (0...255).map { UInt8($0) })
        #expect(handler.paths == ["docs/index.html", "img/all.png", "index.html"])
    }

    @Test func servesFilesAndFolderIndexesWithTheirTypesAndTags() async throws {
        try await withHTTPServer(responder: Self.responder()) { server in
            let port = try #require(server.port)
            let root = try await RawHTTPClient(port: port).get("/")
            #expect(root.text == "<h1>home</h1>")
            #expect(root.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(try await RawHTTPClient(port: port).get("/docs/").text == "<h1>docs</h1>")
            #expect(try await RawHTTPClient(port: port).get("/docs").text == "<h1>docs</h1>")
            let image = try await RawHTTPClient(port: port).get("/img/all.png")
            #expect(image.headers["Content-Type"] == "image/png")
            #expect(image.headers["ETag"] == "\"100-3\"")
            #expect(image.body == (0...255).map { UInt8($0) })
            let cached = try await RawHTTPClient(port: port).get(
                "/img/all.png", headers: "If-None-Match: \"100-3\"\r\n")
            #expect(cached.status == 304)
            #expect(try await RawHTTPClient(port: port).get("/img/../index.html").status == 400)
            #expect(try await RawHTTPClient(port: port).get("/img/%2Fall.png").status == 400)
            #expect(try await RawHTTPClient(port: port).get("/.env").status == 404)
            #expect(try await RawHTTPClient(port: port).get("/img").status == 404)
        }
    }
}
