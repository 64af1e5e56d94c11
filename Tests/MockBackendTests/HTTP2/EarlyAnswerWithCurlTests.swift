import Foundation
import MockBackend
import MockBackendTesting
import TestSupport
import Testing

/// An answer given before the request body has all come (here a 413 for a body over the
/// limit), seen by curl over every protocol: curl reads it and stops sending. Over HTTP/2
/// the server answers and takes the rest of the stream without a RST_STREAM: curl 7.88
/// drops an answer that a RST_STREAM NO_ERROR follows.
@Suite("Early answers, with curl")
struct EarlyAnswerWithCurlTests {
    @Test(arguments: Transport.overSockets)
    func anUploadOverTheLimitGetsIts413(over transport: Transport) async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.http.limits.maxBodyBytes = 64 * 1024
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString).json")
        try Data(count: 1 << 20).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await withApp(over: transport, configuration) { server in
            let (base, options) = StreamsOverEveryProtocolTests.endpoint(server, transport)
            let result = try await StreamsOverEveryProtocolTests.curl(
                [
                    "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@\(file.path)",
                    "-w", "\n%{http_code}", base + "/__admin/mappings",
                ], options: options)
            #expect(result.status == 0, "curl exited \(result.status): \(result.output)")
            #expect(result.output.contains("PAYLOAD_TOO_LARGE"), "\(result.output)")
            #expect(result.output.hasSuffix("\n413"), "\(result.output)")
        }
    }
}
