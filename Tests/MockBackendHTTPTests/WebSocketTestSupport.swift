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

/// Runs `body` once per case, each with a client of its own, one after the other on one
/// server: many short cases cost one server, and do not all run at once. A case that
/// throws is recorded with its value, and the next one runs.
func forEachCase<Case: Sendable>(
    _ cases: [Case], configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
    registry: WebSocketRegistry = WebSocketRegistry(), sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (Case, RawWebSocketClient) async throws -> Void
) async throws {
    try await withHTTPServer(configuration: configuration, responder: WebSocketTestRoutes.responder(registry)) {
        server in
        for testCase in cases {
            do {
                let client = try await RawWebSocketClient.connect(server)
                try await body(testCase, client)
            } catch {
                Issue.record(error, "case \(testCase)", sourceLocation: sourceLocation)
            }
        }
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
        opcode: UInt8, _ payload: [UInt8], _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let frame = try await readFrameSkippingPings()
        #expect(
            frame == RawWebSocketFrame(opcode: opcode, masked: false, payload: payload), comment,
            sourceLocation: sourceLocation)
    }

    func expectText(_ text: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        try await expectMessage(opcode: 1, Array(text.utf8), comment, sourceLocation: sourceLocation)
    }

    /// Expects the connection to be failed (RFC 6455 §7.1.7): a close frame with `code` as
    /// the next frame, then the server closes the TCP connection (FIN).
    func expectFailed(
        with code: UInt16, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let context = comment.map { "\($0): " } ?? ""
        let frame = try await readFrameSkippingPings()
        #expect(frame.opcode == 8, "\(context)\(frame)", sourceLocation: sourceLocation)
        #expect(frame.closeCode == code, "\(context)\(frame) \(frame.text)", sourceLocation: sourceLocation)
        #expect(!frame.masked && frame.rsv == 0, comment, sourceLocation: sourceLocation)
        let rest = await readUntilClosed()
        #expect(rest.frames.isEmpty, "\(context)\(rest.frames)", sourceLocation: sourceLocation)
        #expect(rest.end == .fin, comment, sourceLocation: sourceLocation)
        close()
    }

    /// The closing handshake from the client's side: close 1000, the echo, then FIN.
    func closeCleanly(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try send(.close(code: 1000))
        let frame = try await readFrameSkippingPings()
        #expect(
            frame == RawWebSocketFrame(opcode: 8, masked: false, payload: [0x03, 0xE8]), comment,
            sourceLocation: sourceLocation)
        #expect(await readUntilClosed().end == .fin, comment, sourceLocation: sourceLocation)
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
