import Foundation
import MockBackendTesting
import TestSupport
import Testing

/// A client that resets an HTTPS connection while the server is still writing must not
/// kill the process: OpenSSL writes with plain `write()`, which raises SIGPIPE on a reset
/// socket unless the process ignores it. Run against a child `mockbackend`, since the
/// test process may ignore SIGPIPE itself.
@Suite("HTTPS clients that reset mid-response", .serialized)
struct TLSResetTests {
    /// Each round asks for a large response with a small receive buffer, reads its first
    /// bytes and closes with SO_LINGER 0 (RST): the 125 KB OpenAPI document, a body paced
    /// out in 100-byte writes 2 ms apart (the server is mid-response for a while), and an
    /// event stream with a 64 KiB padding prelude.
    private static let client = """
        import socket, ssl, struct, sys
        cafile, port, rounds, scale = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
        context = ssl.create_default_context(cafile=cafile)
        paced = "/conformance/sse/raw?body=data:%20" + "x" * 3000 + "%0A%0A&chunk=100&chunkDelay=2"
        paths = ["/openapi.yaml", paced, "/sse/channels/resets?padding=65536"]
        for index in range(rounds):
            raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            raw.settimeout(10 * scale)
            raw.connect(("127.0.0.1", port))
            tls = context.wrap_socket(raw, server_hostname="localhost")
            tls.sendall(f"GET {paths[index % 3]} HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n".encode())
            first = tls.recv(1024)
            assert first.startswith(b"HTTP/1.1 200"), first[:80]
            tls.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            tls.close()
        print("resets", rounds, flush=True)
        """

    /// The process is still running after the resets, answers over HTTPS and HTTP, and
    /// stops on SIGTERM with status 0. Fails if a write to a reset socket kills it
    /// (SIGPIPE: the client's rounds then fail too, and the exit status is 13).
    @Test func survivesRepeatedResetsWhileWriting() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-rst-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificateFile = directory.appendingPathComponent("cert.pem").path
        let server = try ServerProcess(["--port", "0", "--tls-port", "0", "--tls-cert-out", certificateFile])
        let port = try await server.waitForListening()
        let tlsPort = try #require(
            server.text.firstMatch(of: /https      https:\/\/127\.0\.0\.1:(\d+)\//).flatMap { Int($0.output.1) },
            "\(server.text)")

        let rounds = 24
        let run = try ToolRun(
            "/usr/bin/env",
            ["python3", "-c", Self.client, certificateFile, "\(tlsPort)", "\(rounds)", "\(TestTiming.scale)"])
        #expect(await run.exitStatus(timeout: .seconds(60)) == 0, "\(run.output)")
        #expect(run.output.contains("resets \(rounds)"), "\(run.output)")
        #expect(server.process.isRunning, "ended with status \(server.process.terminationStatus)")

        let secure = try ToolRun(
            "/usr/bin/curl", ["--silent", "--cacert", certificateFile, "https://localhost:\(tlsPort)/health"])
        #expect(await secure.exitStatus() == 0)
        #expect(secure.output == #"{"status":"ok"}"#)
        #expect(try await RawHTTPClient(port: port).get("/health").status == 200)
        server.process.terminate()
        #expect(await server.waitForExit(timeout: .seconds(10)) == 0)
    }
}
