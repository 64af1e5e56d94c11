import Foundation
import MockBackend
import MockBackendTesting
import TestSupport
import Testing

/// Whether the server ends its TLS connections with close_notify (RFC 8446 §6.1). Python's
/// `ssl` with `suppress_ragged_eofs=False` tells the two ends apart: `recv` returns `b""`
/// only after close_notify, and a bare TCP FIN raises `SSLEOFError` (OpenSSL's "unexpected
/// eof while reading"). So each test here fails if the server closes without close_notify.
@Suite("HTTPS close_notify")
struct CloseNotifyTests {
    /// Sends `GET PATH` with an optional extra header line, prints `seen` once `MARKER` has
    /// arrived, then reads to the end and prints how the connection ended.
    private static let client = """
        import socket, ssl, sys
        cafile, port, path, header, marker, scale = sys.argv[1:7]
        context = ssl.create_default_context(cafile=cafile)
        with socket.create_connection(("127.0.0.1", int(port))) as raw:
            with context.wrap_socket(raw, server_hostname="localhost", suppress_ragged_eofs=False) as tls:
                # Long: a busy run can leave the test that drives this idle for many seconds.
                tls.settimeout(60 * int(scale))
                extra = header + "\\r\\n" if header else ""
                tls.sendall(f"GET {path} HTTP/1.1\\r\\nHost: localhost\\r\\n{extra}\\r\\n".encode())
                received, seen = b"", False
                try:
                    while True:
                        chunk = tls.recv(65536)
                        if not chunk:
                            print("ended with close_notify", flush=True)
                            break
                        received += chunk
                        if not seen and marker.encode() in received:
                            seen = True
                            print("seen", flush=True)
                except ssl.SSLEOFError as error:
                    print("ended without close_notify:", error, flush=True)
                print("received marker", marker.encode() in received, flush=True)
        """

    private static func run(_ tls: TLSServer, _ path: String, header: String = "", marker: String) throws -> ToolRun {
        try ToolRun(
            "/usr/bin/env",
            [
                "python3", "-c", client, tls.certificateFile, "\(tls.tlsPort)", path, header, marker,
                "\(TestTiming.scale)",
            ])
    }

    /// `Connection: close`: the whole response, then close_notify, then the end.
    @Test func aConnectionCloseResponseEndsWithCloseNotify() async throws {
        try await withTLSServer { tls in
            let run = try Self.run(tls, "/health", header: "Connection: close", marker: #"{"status":"ok"}"#)
            #expect(await run.exitStatus() == 0, "\(run.output)")
            #expect(run.output.contains("ended with close_notify"), "\(run.output)")
            #expect(run.output.contains("received marker True"), "\(run.output)")
        }
    }

    /// A keep-alive connection the server closes once it has been idle too long.
    @Test func anIdleTimeoutEndsWithCloseNotify() async throws {
        let shortIdle: (inout MockBackendConfiguration) -> Void = { $0.http.idleTimeout = .milliseconds(200) }
        try await withTLSServer(configure: shortIdle) { tls in
            let run = try Self.run(tls, "/health", marker: #"{"status":"ok"}"#)
            #expect(await run.exitStatus() == 0, "\(run.output)")
            #expect(run.output.contains("ended with close_notify"), "\(run.output)")
            #expect(run.output.contains("received marker True"), "\(run.output)")
        }
    }

    /// An event stream the server drops (`POST /__admin/streams/{name}/disconnect`).
    @Test func aStreamTheServerDropsEndsWithCloseNotify() async throws {
        try await withTLSServer { tls in
            let run = try Self.run(tls, "/sse/channels/closing", marker: "text/event-stream")
            #expect(await run.waitForOutput(containing: "seen"), "\(run.output)")
            #expect(
                await eventually {
                    tls.server.app.streams.existingStream(named: "channels/closing")?.snapshot.subscribers.count == 1
                })
            try await tls.server.admin.streams.disconnect("channels/closing")
            #expect(await run.exitStatus() == 0, "\(run.output)")
            #expect(run.output.contains("ended with close_notify"), "\(run.output)")
        }
    }
}
