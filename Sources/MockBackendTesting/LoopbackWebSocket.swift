import Foundation
import MockBackendClient
import MockBackendSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One open WebSocket of `LoopbackWebSocketTransport`: the client side of RFC 6455 over a
/// `RawHTTPClient`'s socket, read by one task at a time as `WebSocketConnection` says.
///
/// The reading task waits for bytes without holding a thread (`ReadinessPoller`), and
/// `cancel(code:)` from any thread shuts the socket down, which ends that wait at once.
/// The descriptor itself is closed only when the connection is released, so it can never
/// be reused by another socket while a wait is on it.
package final class LoopbackWebSocket: WebSocketConnection {
    /// The sending side: a pong from the reader and a close from `cancel` never interleave.
    private struct Link {
        let client: RawHTTPClient
        /// False once a close frame went out or the socket was shut down: nothing more is sent.
        var isOpen = true
    }

    /// What the reading task keeps between calls to `receive()`.
    private struct Reader {
        /// Bytes received and not yet read as frames.
        var pending: [UInt8]
        /// The opcode and payload so far of a fragmented message (§5.4).
        var message: (opcode: UInt8, payload: [UInt8])?
    }

    private let link: LockedValue<Link>
    private let reader: LockedValue<Reader>
    private let fileDescriptor: Int32

    /// Takes over `client`'s socket after the handshake; `received` are the bytes that
    /// followed the 101.
    init(client: RawHTTPClient, received: [UInt8]) {
        fileDescriptor = client.fileDescriptor
        link = LockedValue(Link(client: client))
        reader = LockedValue(Reader(pending: received))
    }

    package func receive() async throws -> WebSocketMessage {
        while true {
            guard link.withLock({ $0.isOpen }) else { throw WebSocketTransportError.cancelled }
            let frame = reader.withLock { reader -> RawWebSocketFrame? in
                guard let (frame, size) = RawWebSocketFrame.decode(reader.pending) else { return nil }
                reader.pending.removeFirst(size)
                return frame
            }
            guard let frame else {
                try await readMore()
                continue
            }
            if let message = try handle(frame) { return message }
        }
    }

    package func cancel(code: UInt16) {
        shutDown(sending: .close(code: code))
    }

    /// What a frame means: a message, a control frame answered, or nothing yet (a fragment).
    private func handle(_ frame: RawWebSocketFrame) throws -> WebSocketMessage? {
        // §5.1: a server never masks; §5.2: without an extension the reserved bits are 0;
        // §5.5: control frames are single frames of at most 125 bytes.
        guard !frame.masked, frame.rsv == 0 else { throw fail("a masked frame or reserved bits") }
        guard frame.opcode < 8 || (frame.fin && frame.payload.count <= 125) else {
            throw fail("a fragmented or long control frame")
        }
        switch frame.opcode {
        case 0x9:
            // §5.5.3: a pong carries the ping's application data.
            send(RawWebSocketFrame(opcode: 0xA, payload: frame.payload))
            return .ping
        case 0xA:
            return nil  // an unsolicited pong needs no answer (§5.5.3)
        case 0x8:
            // §5.5.1: answer with a close frame, echoing the status code.
            let reason = frame.payload.count > 2 ? String(decoding: frame.payload[2...], as: UTF8.self) : ""
            shutDown(sending: .close(code: frame.closeCode))
            return .close(code: frame.closeCode, reason: reason)
        case 0x0, 0x1, 0x2:
            return try assemble(frame)
        default:
            throw fail("opcode \(frame.opcode)")
        }
    }

    /// Joins a data frame to its message (§5.4); the message once its last frame is in.
    private func assemble(_ frame: RawWebSocketFrame) throws -> WebSocketMessage? {
        let complete = try reader.withLock { reader -> (UInt8, [UInt8])? in
            switch (frame.opcode, reader.message) {
            case (0x0, .some(var message)):
                message.payload += frame.payload
                reader.message = frame.fin ? nil : message
                return frame.fin ? message : nil
            case (0x1, nil), (0x2, nil):
                if frame.fin { return (frame.opcode, frame.payload) }
                reader.message = (frame.opcode, frame.payload)
                return nil
            default:
                throw fail("a continuation frame out of place")
            }
        }
        guard let (opcode, payload) = complete else { return nil }
        guard opcode == 0x1 else { return .binary(Data(payload)) }
        // §8.1: text must be UTF-8; anything else fails the connection with 1007.
        guard let text = String(bytes: payload, encoding: .utf8) else {
            throw fail("text that is not UTF-8", code: 1007)
        }
        return .text(text)
    }

    /// Waits for more bytes and appends them to the reader's.
    private func readMore() async throws {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes {
                recv(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count > 0 {
                reader.withLock { $0.pending += chunk[0..<count] }
                return
            }
            // FIN, or the shutdown of `cancel`.
            if count == 0 { throw ended() }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else { throw ended() }
            _ = await ReadinessPoller.shared.waitReadable(fileDescriptor, until: .now + .seconds(3600))
        }
    }

    /// Why reading stopped: this side's cancel, else an end without a close frame (§7.1.5).
    private func ended() -> WebSocketTransportError {
        link.withLock { $0.isOpen } ? .abnormalClosure : .cancelled
    }

    /// Fails the connection (§7.1.7): a close frame with `code`, then the end.
    private func fail(_ reason: String, code: UInt16 = 1002) -> WebSocketTransportError {
        shutDown(sending: .close(code: code))
        return .protocolViolation(reason)
    }

    /// Sends a frame masked with a fresh key (§5.3), unless the socket is closing.
    private func send(_ frame: RawWebSocketFrame) {
        link.withLock { link in
            guard link.isOpen else { return }
            try? link.client.send(frame.encoded(mask: Self.freshMask()))
        }
    }

    /// Sends `closeFrame` unless a close frame already went out, then shuts the socket down
    /// both ways: the server sees FIN after the frame, and a pending wait for bytes ends.
    private func shutDown(sending closeFrame: RawWebSocketFrame) {
        link.withLock { link in
            guard link.isOpen else { return }
            link.isOpen = false
            try? link.client.send(closeFrame.encoded(mask: Self.freshMask()))
            _ = shutdown(fileDescriptor, Int32(SHUT_RDWR))
        }
    }

    /// §5.3: each frame's masking key is new and unpredictable.
    private static func freshMask() -> [UInt8] {
        (0..<4).map { _ in UInt8.random(in: .min ... .max) }
    }
}
