import MockBackendHTTP

/// A frame as a test writes it or reads it, every bit of the header free: reserved bits,
/// opcodes no one defined, masked or not. For tests that must send what a real client
/// never would.
package struct RawWebSocketFrame: Sendable, Equatable, CustomStringConvertible {
    package var fin: Bool
    /// RSV1-3 as the three low bits (RFC 6455 §5.2).
    package var rsv: UInt8
    package var opcode: UInt8
    package var masked: Bool
    package var payload: [UInt8]

    package init(fin: Bool = true, rsv: UInt8 = 0, opcode: UInt8, masked: Bool = true, payload: [UInt8] = []) {
        self.fin = fin
        self.rsv = rsv
        self.opcode = opcode
        self.masked = masked
        self.payload = payload
    }

    package static func text(_ text: String, fin: Bool = true) -> RawWebSocketFrame {
        RawWebSocketFrame(fin: fin, opcode: 1, payload: Array(text.utf8))
    }

    package static func close(code: UInt16? = 1000, reason: String = "") -> RawWebSocketFrame {
        let payload = code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] + Array(reason.utf8) } ?? []
        return RawWebSocketFrame(opcode: 8, payload: payload)
    }

    /// The payload as text.
    package var text: String { String(decoding: payload, as: UTF8.self) }

    /// The status code of a close frame; nil when it has none.
    package var closeCode: UInt16? {
        payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
    }

    package var description: String {
        "opcode=\(opcode) fin=\(fin) rsv=\(rsv) masked=\(masked) \(payload.count) bytes"
    }

    /// The frame on the wire, masked with `mask` when `masked` (RFC 6455 §5.2, §5.3). The
    /// length takes its shortest form.
    package func encoded(mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv & 7) << 4 | (opcode & 0x0F)]
        let maskBit: UInt8 = masked ? 0x80 : 0
        let count = payload.count
        if count < 126 {
            bytes.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(count >> 8), UInt8(count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: count >> shift))
            }
        }
        guard masked else { return bytes + payload }
        bytes += mask
        for (index, byte) in payload.enumerated() { bytes.append(byte ^ mask[index % 4]) }
        return bytes
    }

    /// Reads one frame (masked or not) from the start of `bytes`: the frame and the bytes
    /// it took, or nil while it is incomplete.
    package static func decode(_ bytes: [UInt8]) -> (frame: RawWebSocketFrame, size: Int)? {
        guard bytes.count >= 2 else { return nil }
        var offset = 2
        var length = Int(bytes[1] & 0x7F)
        if length >= 126 {
            let extra = length == 126 ? 2 : 8
            guard bytes.count >= 2 + extra else { return nil }
            length = bytes[2..<(2 + extra)].reduce(0) { $0 << 8 | Int($1) }
            offset += extra
        }
        let masked = bytes[1] & 0x80 != 0
        let mask = masked && bytes.count >= offset + 4 ? Array(bytes[offset..<(offset + 4)]) : []
        if masked { offset += 4 }
        guard bytes.count >= offset + length else { return nil }
        var payload = Array(bytes[offset..<(offset + length)])
        if masked { for index in payload.indices { payload[index] ^= mask[index % 4] } }
        let frame = RawWebSocketFrame(
            fin: bytes[0] & 0x80 != 0, rsv: bytes[0] >> 4 & 7, opcode: bytes[0] & 0x0F, masked: masked, payload: payload
        )
        return (frame, offset + length)
    }
}

/// A loopback WebSocket client over `RawHTTPClient`: sends any bytes, reads server frames.
package final class RawWebSocketClient {
    package let connection: RawHTTPClient
    /// The 101 response of the handshake.
    package private(set) var handshake: RawResponse?
    /// Bytes received after the handshake and not yet read as frames.
    private var pending: [UInt8] = []

    /// A key of 16 bytes in base64, as RFC 6455 §1.3's example.
    package static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

    package init(_ connection: RawHTTPClient) {
        self.connection = connection
    }

    /// Connects to `port` and upgrades `GET path`; throws unless the answer is 101.
    package static func connect(port: Int, path: String = "/", extraHeaders: String = "") async throws
        -> RawWebSocketClient
    {
        let client = RawWebSocketClient(try RawHTTPClient(port: port))
        let response = try await client.upgrade(path: path, extraHeaders: extraHeaders)
        guard response.status == 101 else { throw RawClientError.malformedResponse(response.rawHead) }
        return client
    }

    /// The bytes of an opening handshake (RFC 6455 §4.1); `extraHeaders` are CRLF-ended lines.
    package static func upgradeRequest(path: String, key: String = sampleKey, extraHeaders: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\(extraHeaders)\r\n"
    }

    /// Sends the opening handshake and reads the answer.
    package func upgrade(path: String, extraHeaders: String = "") async throws -> RawResponse {
        try connection.send(Self.upgradeRequest(path: path, extraHeaders: extraHeaders))
        let response = try await connection.readResponse()
        handshake = response
        return response
    }

    package func send(_ frame: RawWebSocketFrame) throws {
        try connection.send(frame.encoded())
    }

    package func send(bytes: [UInt8]) throws {
        try connection.send(bytes)
    }

    /// Reads the next frame the server sends.
    package func readFrame(timeout: Duration = .seconds(20)) async throws -> RawWebSocketFrame {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while true {
            pending += connection.takeBuffer()
            if let (frame, size) = RawWebSocketFrame.decode(pending) {
                pending.removeFirst(size)
                return frame
            }
            guard deadline > .now else { throw RawClientError.timedOut }
            if try await connection.receive(timeout: (deadline - .now) / TestTiming.scale) == 0 {
                throw RawClientError.closedByPeer
            }
        }
    }

    /// Reads frames until one that is not a ping (the server's own pings are skipped).
    package func readFrameSkippingPings(timeout: Duration = .seconds(20)) async throws -> RawWebSocketFrame {
        while true {
            let frame = try await readFrame(timeout: timeout)
            if frame.opcode != 9 { return frame }
        }
    }

    /// Whether the server sends nothing more: reads until it closes and returns how, with
    /// any frames that came first.
    package func readUntilClosed(timeout: Duration = .seconds(20)) async -> (
        frames: [RawWebSocketFrame], end: RawCloseOutcome
    ) {
        let end = await connection.waitForClose(timeout: timeout)
        pending += connection.takeBuffer()
        var frames: [RawWebSocketFrame] = []
        while let (frame, size) = RawWebSocketFrame.decode(pending) {
            frames.append(frame)
            pending.removeFirst(size)
        }
        return (frames, end)
    }

    package func close() {
        connection.close()
    }
}
