import MockBackend
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// A body known in full is gzipped for a client that accepts it, over every protocol alike.
@Suite("gzip on whole bodies")
struct DocumentGzipTests {
    @Test(arguments: Transport.overSockets)
    func theOpenAPIDocumentIsGzippedForAClientThatAcceptsIt(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let plain = try await server.request("GET", "/openapi.yaml")
            let zipped = try await server.request("GET", "/openapi.yaml", headers: ["Accept-Encoding": "gzip"])
            #expect(plain.headers["Content-Encoding"] == nil)
            #expect(zipped.headers["Content-Encoding"] == "gzip")
            #expect(zipped.headers["Vary"]?.contains("Accept-Encoding") == true)
            #expect(zipped.body.count < plain.body.count / 2)
            #expect(try GzipInflater().decompress(zipped.body) == plain.body)
        }
    }
}
