import Testing

@testable import MockBackendHTTP

/// The client's side of WebSocket framing, for a proxy's socket to its upstream: masked
/// frames out, unmasked frames in (RFC 6455 §5.1, §5.3), without a socket.
@Suite("WebSocket client role")
struct WebSocketClientRoleTests {
    @Test func aClientFrameIsMaskedAndAServerReadsItBack() {
        for size in [0, 5, 125, 126, 65_535, 65_536] {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0) }
            let frame = WebSocketClientFrames.frame(.binary, payload: payload, key: (1, 2, 3, 4))
            #expect(frame[1] & 0x80 != 0, "size \(size): the mask bit")
            var server = WebSocketFrameDecoder(maxMessageBytes: 1 << 20)
            let events = server.feed(frame)
            guard case .frame(let decoded)? = events.first else {
                Issue.record("size \(size): \(events)")
                continue
            }
            #expect(decoded.opcode == .binary)
            #expect(decoded.payload == payload, "size \(size)")
        }
    }

    @Test func theClientRoleReadsUnmaskedFramesSplitAnywhere() {
        let frames = WebSocketFrameEncoder.text("hello") + WebSocketFrameEncoder.binary(Array(repeating: 7, count: 300))
        for split in 1..<frames.count {
            var client = WebSocketFrameDecoder(role: .client)
            let events = client.feed(frames[..<split]) + client.feed(frames[split...])
            let payloads = events.compactMap { event -> [UInt8]? in
                if case .frame(let frame) = event { return frame.payload }
                return nil
            }
            #expect(payloads == [Array("hello".utf8), Array(repeating: 7, count: 300)], "split \(split): \(events)")
        }
    }

    @Test func theClientRoleRefusesAMaskedFrame() {
        var client = WebSocketFrameDecoder(role: .client)
        let events = client.feed(WebSocketClientFrames.frame(.text, payload: Array("x".utf8)))
        guard case .failure(let error)? = events.first else {
            Issue.record("\(events)")
            return
        }
        #expect(error.closeCode == .protocolError)
        #expect(error.detail.contains("server frame is masked"))
    }
}
