import MockBackendHTTP
import MockBackendTesting
import Testing

/// Runs `body` with a client upgraded on the echo route of a fresh server.
func withEchoWebSocket(
    configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
    registry: WebSocketRegistry = WebSocketRegistry(),
    _ body: (RawWebSocketClient) async throws -> Void
) async throws {
    try await withHTTPServer(configuration: configuration, responder: WebSocketTestRoutes.responder(registry)) {
        server in
        let client = try await RawWebSocketClient.connect(server)
        try await body(client)
    }
}

extension RawWebSocketClient {
    func send(_ frames: RawWebSocketFrame...) throws {
        try send(bytes: frames.flatMap { $0.encoded() })
    }

    /// Sends `bytes` in pieces of `size` bytes, each its own write.
    func send(bytes: [UInt8], inChopsOf size: Int) throws {
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            try send(bytes: Array(bytes[start..<end]))
            start = end
        }
    }

    /// Expects the next frame to be a data frame, unmasked, reserved bits clear, whole.
    func expectMessage(
        opcode: UInt8, _ payload: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let frame = try await readFrameSkippingPings()
        #expect(
            frame == RawWebSocketFrame(opcode: opcode, masked: false, payload: payload), sourceLocation: sourceLocation)
    }

    func expectText(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await expectMessage(opcode: 1, Array(text.utf8), sourceLocation: sourceLocation)
    }

    /// Expects the connection to be failed (RFC 6455 §7.1.7): a close frame with `code` as
    /// the next frame, then the server closes the TCP connection (FIN).
    func expectFailed(with code: UInt16, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let frame = try await readFrameSkippingPings()
        #expect(frame.opcode == 8, "\(frame)", sourceLocation: sourceLocation)
        #expect(frame.closeCode == code, "\(frame) \(frame.text)", sourceLocation: sourceLocation)
        #expect(!frame.masked && frame.rsv == 0, sourceLocation: sourceLocation)
        let rest = await readUntilClosed()
        #expect(rest.frames.isEmpty, "\(rest.frames)", sourceLocation: sourceLocation)
        #expect(rest.end == .fin, sourceLocation: sourceLocation)
        close()
    }

    /// The closing handshake from the client's side: close 1000, the echo, then FIN.
    func closeCleanly(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try send(.close(code: 1000))
        let frame = try await readFrameSkippingPings()
        #expect(
            frame == RawWebSocketFrame(opcode: 8, masked: false, payload: [0x03, 0xE8]), sourceLocation: sourceLocation)
        #expect(await readUntilClosed().end == .fin, sourceLocation: sourceLocation)
        close()
    }

    /// Expects nothing from the server for `duration` (no pong, no echo).
    func expectSilence(for duration: Duration = .milliseconds(100), sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        do {
            let frame = try await readFrame(timeout: duration)
            Issue.record("unexpected frame \(frame)", sourceLocation: sourceLocation)
        } catch RawClientError.timedOut {
        }
    }
}
