import Foundation
import MockBackendHTTP
import MockBackendTLS
import MockBackendTesting
import TestSupport
import Testing

@Suite("HTTPS clients that leave mid-handshake")
struct MidHandshakeAbortTests {
    /// Answers every request with `ok`.
    private struct OKResponder: HTTPResponder {
        func respond(to request: HTTPRequest) -> HTTPResponse {
            HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: .bytes(Array("ok".utf8)))
        }
    }

    /// A bare `HTTPServer` on the TLS transport, so its own statistics count the TLS
    /// connections (`MockBackendApp.statistics` counts only the plain listener's).
    private static func withTLSOnlyServer(
        _ body: (HTTPServer, _ certificateFile: String) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let identity = try TLSIdentity.selfSigned()
        let certificateFile = scratch.path("cert.pem")
        try identity.certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
        // A header timeout well past the client's waits: only the server's handling of the
        // abort can close these connections in time, not the timeout.
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.headerTimeout = .seconds(120)
        let server = HTTPServer(
            configuration: configuration, responder: OKResponder(), logger: silentLogger,
            transport: try TLSContext(identity: identity, logger: silentLogger))
        try server.start()
        do {
            try await body(server, certificateFile)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Each round makes a real ClientHello with Python's `ssl` on memory BIOs, sends it,
    /// and leaves in the middle of the handshake in one of three ways: after reading part
    /// of the server's first flight (unread bytes make the kernel send RST), after reading
    /// all of it but sending FIN instead of the client's Finished (and waiting for the
    /// server to close), or at once, before the server has answered.
    private static let client = """
        import socket, ssl, sys
        port, rounds, scale = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        for index in range(rounds):
            incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
            handshake = context.wrap_bio(incoming, outgoing, server_hostname="localhost")
            try:
                handshake.do_handshake()
            except ssl.SSLWantReadError:
                pass
            hello = outgoing.read()
            assert hello[0] == 0x16 and hello[5] == 0x01, "a ClientHello record"
            sock = socket.create_connection(("127.0.0.1", port))
            sock.settimeout(5 * scale)
            sock.sendall(hello)
            if index % 3 == 0:
                reply = sock.recv(16)
                assert reply[:1] == b"\\x16", f"a ServerHello record, not {reply!r}"
            elif index % 3 == 1:
                while True:
                    data = sock.recv(65536)
                    assert data, "the server closed before its flight was complete"
                    incoming.write(data)
                    try:
                        handshake.do_handshake()
                        break
                    except ssl.SSLWantReadError:
                        pass
                sock.shutdown(socket.SHUT_WR)
                assert sock.recv(65536) == b"", "the server closes without a word after FIN mid-handshake"
            sock.close()
        print("aborted", rounds, flush=True)
        """

    /// The connections close and leave no connection object, descriptor or timer behind
    /// (the server's own counts, and the kernel's view of sockets on the port), and the
    /// server goes on serving. Fails if a connection that ends mid-handshake stays open
    /// (the FIN round then times out too), leaks its socket or its write source's
    /// duplicate descriptor, or keeps a timer.
    @Test func realClientHellosAbandonedMidwayLeaveNothingBehind() async throws {
        try await Self.withTLSOnlyServer { server, certificateFile in
            let port = server.port ?? 0
            #expect(await eventually { server.statistics.openConnections == 0 })
            let before = server.statistics
            let rounds = 12
            let run = try ToolRun(
                "/usr/bin/env", ["python3", "-c", Self.client, "\(port)", "\(rounds)", "\(TestTiming.scale)"])
            #expect(await run.exitStatus(timeout: .seconds(60)) == 0, "\(run.output)")
            #expect(run.output.contains("aborted \(rounds)"), "\(run.output)")
            let settled = await eventually {
                let now = server.statistics
                return now.acceptedConnections == before.acceptedConnections + rounds && now.openConnections == 0
                    && now.liveConnectionObjects == 0 && now.openDescriptors == before.openDescriptors
                    && now.activeTimers == before.activeTimers && SocketCensus.serverSideDescriptors(port: port) == 0
            }
            #expect(settled, "\(server.statistics)")
            let after = try ToolRun(
                "/usr/bin/curl",
                ["--silent", "--show-error", "--cacert", certificateFile, "https://localhost:\(port)/health"])
            #expect(await after.exitStatus() == 0, "\(after.output)")
            #expect(after.output == "ok")
        }
    }
}
