import Foundation
import MockBackendHTTP
import MockBackendTLS
import MockBackendTesting
import TestSupport
import Testing

@Suite("HTTPS listener")
struct HTTPSListenerTests {
    @Test func answersHTTPSBesidePlainHTTPWithTheSameState() async throws {
        try await withTLSServer { tls in
            let secure = try ToolRun.curl(tls, ["\(tls.httpsURL)/health", "--write-out", " %{http_code}"])
            #expect(await secure.exitStatus() == 0)
            #expect(secure.output == #"{"status":"ok"} 200"#)
            let plain = try await tls.server.request("GET", "/health")
            #expect(plain.status == 200)
            // One state behind both: a message pushed over HTTP reaches a stream read over HTTPS.
            let certificate = try ToolRun.curl(tls, ["\(tls.httpsURL)/__admin/tls/cert.pem"])
            #expect(await certificate.exitStatus() == 0)
            #expect(certificate.output == tls.identity.certificatePEM)
            let overHTTP = try await tls.server.request("GET", "/__admin/tls/cert.pem")
            #expect(overHTTP.headers["Content-Type"] == "application/x-x509-ca-cert")
            #expect(overHTTP.text == tls.identity.certificatePEM)
        }
    }

    @Test func theCertificateRouteIs404WithoutTLS() async throws {
        try await withRunningServer { server in
            let response = try await server.request("GET", "/__admin/tls/cert.pem")
            #expect(response.status == 404)
            #expect(response.text.contains(#""code":"TLS_DISABLED""#))
        }
    }

    @Test func streamsServerSentEventsOverTLS() async throws {
        try await withTLSServer { tls in
            let stream = try ToolRun.curl(tls, ["--no-buffer", "\(tls.httpsURL)/sse/channels/tls-demo"])
            #expect(
                await eventually {
                    tls.server.app.streams.existingStream(named: "channels/tls-demo")?.snapshot.subscribers.count == 1
                })
            for text in ["first", "second"] {
                try await tls.server.admin.streams.push(to: "channels/tls-demo", data: .string(text))
                #expect(await stream.waitForOutput(containing: "data: \(text)\n\n"), "\(stream.output)")
            }
        }
    }

    @Test func refusesTLSBelowVersion12() async throws {
        try await withTLSServer { tls in
            let old = try ToolRun.openssl(
                ["s_client", "-connect", "127.0.0.1:\(tls.tlsPort)", "-tls1_1", "-brief"], stdin: "")
            #expect(await old.exitStatus() != 0)
            let twelve = try ToolRun.curl(tls, ["--tlsv1.2", "--tls-max", "1.2", "\(tls.httpsURL)/health"])
            #expect(await twelve.exitStatus() == 0)
            #expect(twelve.output == #"{"status":"ok"}"#)
        }
    }

    /// A plain HTTP request gets a readable 400; a garbage ClientHello is dropped; an
    /// HTTPS stream open meanwhile carries on.
    @Test func plaintextAndGarbageAreRefusedWithoutDisturbingOthers() async throws {
        try await withTLSServer { tls in
            let stream = try ToolRun.curl(tls, ["--no-buffer", "\(tls.httpsURL)/sse/channels/steady"])
            #expect(
                await eventually {
                    tls.server.app.streams.existingStream(named: "channels/steady")?.snapshot.subscribers.count == 1
                })

            let plaintext = try RawHTTPClient(port: tls.tlsPort)
            try plaintext.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let refused = try await plaintext.readResponse()
            #expect(refused.status == 400)
            #expect(refused.headers["Content-Type"] == "application/problem+json")
            #expect(refused.text.contains(#""code":"TLS_REQUIRED""#))
            #expect(await plaintext.waitForClose() != .stillOpen)

            let garbage = try RawHTTPClient(port: tls.tlsPort)
            try garbage.send([0x16, 0x03, 0x01, 0x00, 0x40] + (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37) })
            #expect(await garbage.waitForClose() != .stillOpen)
            let notTLS = try RawHTTPClient(port: tls.tlsPort)
            try notTLS.send([0x00, 0xFF, 0x13, 0x37])
            #expect(await notTLS.waitForClose() != .stillOpen)

            try await tls.server.admin.streams.push(to: "channels/steady", data: .string("still here"))
            #expect(await stream.waitForOutput(containing: "data: still here\n\n"), "\(stream.output)")
            let fresh = try ToolRun.curl(tls, ["\(tls.httpsURL)/health"])
            #expect(await fresh.exitStatus() == 0)
        }
    }

    /// Clients that leave mid-handshake, or before it, leave no connection, descriptor or
    /// timer behind.
    @Test func clientsThatLeaveMidHandshakeLeaveNothingBehind() async throws {
        try await withTLSServer { tls in
            #expect(await eventually { tls.server.app.statistics.openConnections == 0 })
            let before = tls.server.app.statistics
            for round in 0..<20 {
                let client = try RawHTTPClient(port: tls.tlsPort)
                if round % 2 == 0 {
                    // The first bytes of a ClientHello record, then nothing more.
                    try client.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03])
                }
                client.close()
            }
            // A client that hangs up in the middle of a real handshake.
            let halfway = try ToolRun.openssl(
                ["s_client", "-connect", "127.0.0.1:\(tls.tlsPort)", "-brief"], stdin: "")
            _ = await halfway.exitStatus()
            let settled = await eventually {
                let now = tls.server.app.statistics
                return now.openConnections == 0 && now.openDescriptors == before.openDescriptors
                    && now.activeTimers == before.activeTimers && now.liveConnectionObjects == 0
                    && SocketCensus.serverSideDescriptors(port: tls.tlsPort) == 0
            }
            #expect(settled, "\(tls.server.app.statistics)")
            let after = try ToolRun.curl(tls, ["\(tls.httpsURL)/health"])
            #expect(await after.exitStatus() == 0)
        }
    }
}

@Suite("HTTPS pipelining")
struct HTTPSPipeliningTests {
    /// Requests written as separate TLS records that reach the server together: the later
    /// records wait inside OpenSSL, where no socket event announces them, and must still
    /// be answered, in order.
    @Test func answersPipelinedRequestsThatArriveAsSeveralRecords() async throws {
        try await withTLSServer { tls in
            let script = """
                import socket, ssl, sys
                context = ssl.create_default_context(cafile=sys.argv[1])
                with socket.create_connection(("127.0.0.1", int(sys.argv[2]))) as raw:
                    with context.wrap_socket(raw, server_hostname="localhost") as tls:
                        for path in ("/health", "/__admin/health", "/health?third"):
                            tls.sendall(f"GET {path} HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n".encode())
                        tls.settimeout(10)
                        received = b""
                        while received.count(b"HTTP/1.1 200 OK") < 3:
                            chunk = tls.recv(65536)
                            if not chunk:
                                break
                            received += chunk
                        print(received.count(b"HTTP/1.1 200 OK"), received.count(b"uptimeSeconds"))
                """
            let run = try ToolRun("/usr/bin/env", ["python3", "-c", script, tls.certificateFile, "\(tls.tlsPort)"])
            #expect(await run.exitStatus() == 0, "\(run.output)")
            #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines) == "3 1", "\(run.output)")
        }
    }
}

@Suite("HTTPS closing")
struct HTTPSClosingTests {
    /// `Connection: close` over TLS: the whole response, then close_notify and the end of
    /// the connection; many clients in a row that leave without reading close_notify
    /// (their kernel answers it with RST) leave the server serving.
    @Test func closesAfterTheResponseAndSurvivesClientsThatResetAtTheEnd() async throws {
        try await withTLSServer { tls in
            let script = """
                import os, socket, ssl, sys
                context = ssl.create_default_context(cafile=sys.argv[1])
                port = int(sys.argv[2])
                with socket.create_connection(("127.0.0.1", port)) as raw:
                    with context.wrap_socket(raw, server_hostname="localhost") as tls:
                        tls.sendall(b"GET /health HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n")
                        tls.settimeout(10)
                        received = b""
                        while True:
                            chunk = tls.recv(4096)
                            if not chunk:
                                break
                            received += chunk
                        print("closed", received.endswith(b'{"status":"ok"}'))
                for _ in range(300):
                    raw = socket.create_connection(("127.0.0.1", port))
                    tls = context.wrap_socket(raw, server_hostname="localhost")
                    tls.sendall(b"GET /health HTTP/1.0\\r\\n\\r\\n")
                    received = b""
                    while b'"ok"}' not in received:
                        chunk = tls.recv(4096)
                        if not chunk:
                            sys.exit("closed before the whole response")
                        received += chunk
                    os.close(tls.detach())
                print("resets done")
                """
            let run = try ToolRun("/usr/bin/env", ["python3", "-c", script, tls.certificateFile, "\(tls.tlsPort)"])
            #expect(await run.exitStatus(timeout: .seconds(60)) == 0, "\(run.output)")
            #expect(run.output.contains("closed True"), "\(run.output)")
            #expect(run.output.contains("resets done"), "\(run.output)")
            let after = try ToolRun.curl(tls, ["\(tls.httpsURL)/health"])
            #expect(await after.exitStatus() == 0)
            #expect(await eventually { SocketCensus.serverSideDescriptors(port: tls.tlsPort) == 0 })
        }
    }
}
