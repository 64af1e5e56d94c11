import Foundation
import Logging
import MockBackendHTTP
import MockBackendSupport
import MockBackendTLS
import MockBackendTesting
import TestSupport
import Testing

/// The upgrade to WebSocket over TLS: the same connection code over `TLSByteStream`.
@Suite("WebSocket over TLS")
struct WebSocketTLSTests {
    /// Python's `ssl` as the client, writing raw frames: the upgrade request and a masked
    /// text frame in one TLS write (the frame must not be lost with the head), then a
    /// close; it prints the 101 head, every frame it reads, and how the stream ended.
    private static let client = """
        import os, socket, ssl, struct, sys
        cafile, port, scale = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        def frame(opcode, payload):
            mask = os.urandom(4)
            return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        context = ssl.create_default_context(cafile=cafile)
        with socket.create_connection(("127.0.0.1", port)) as raw:
            with context.wrap_socket(raw, server_hostname="localhost", suppress_ragged_eofs=False) as tls:
                tls.settimeout(10 * scale)
                request = ("GET /echo HTTP/1.1\\r\\nHost: localhost\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
                           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n").encode()
                tls.sendall(request + frame(1, "secure hello".encode()))
                data = b""
                while b"\\r\\n\\r\\n" not in data:
                    data += tls.recv(65536)
                head, data = data.split(b"\\r\\n\\r\\n", 1)
                print(head.decode().splitlines()[0], flush=True)
                print([line for line in head.decode().splitlines() if line.startswith("Sec-WebSocket-Accept")][0], flush=True)
                def read_frame():
                    global data
                    while len(data) < 2 or len(data) < 2 + (data[1] & 0x7F):
                        chunk = tls.recv(65536)
                        if not chunk:
                            raise EOFError
                        data += chunk
                    length = data[1] & 0x7F
                    opcode, payload, data = data[0] & 0x0F, data[2:2 + length], data[2 + length:]
                    return opcode, payload
                opcode, payload = read_frame()
                print("frame", opcode, payload.decode(), flush=True)
                tls.sendall(frame(8, struct.pack("!H", 1000) + b"bye"))
                opcode, payload = read_frame()
                print("frame", opcode, struct.unpack("!H", payload[:2])[0], flush=True)
                try:
                    while tls.recv(65536):
                        pass
                    print("ended with close_notify", flush=True)
                except ssl.SSLEOFError as error:
                    print("ended without close_notify:", error, flush=True)
        """

    @Test func upgradesAndExchangesMessagesOverTLS() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let identity = try TLSIdentity.selfSigned()
        let certificateFile = scratch.path("cert.pem")
        try identity.certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
        let closeEvents = LockedValue<[WebSocketCloseEvent]>([])
        var router = Router()
        router.get("/echo") { request in
            .webSocket(upgrading: request) { writer in
                writer.onText { writer.send(text: "echo: " + $0) }
                writer.onClose { event in closeEvents.withLock { $0.append(event) } }
            }
        }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(), responder: RoutingResponder(router: router, logger: silentLogger),
            logger: silentLogger, transport: try TLSContext(identity: identity, logger: silentLogger))
        try server.start()
        let run = try ToolRun(
            "/usr/bin/env",
            ["python3", "-c", Self.client, certificateFile, "\(server.port ?? 0)", "\(TestTiming.scale)"])
        let status = await run.exitStatus()
        await server.stop()
        #expect(status == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "HTTP/1.1 101 Switching Protocols", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
                "frame 1 echo: secure hello", "frame 8 1000", "ended with close_notify",
            ], "\(run.output)")
        #expect(
            closeEvents.current == [
                WebSocketCloseEvent(code: .normalClosure, reason: "bye", sentCode: .normalClosure, transport: .finished)
            ])
    }
}
