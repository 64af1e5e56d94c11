import COpenSSL
import Logging
import MockBackendHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One TLS connection as a `ByteStream`: OpenSSL on the connection's non-blocking socket.
///
/// The handshake runs inside the first reads (the server never writes first), so the
/// connection's own read and write sources drive it: `SSL_ERROR_WANT_READ` and
/// `WANT_WRITE` become `.wouldBlock` in that direction. A failed handshake is logged and
/// the connection closed; nothing else is affected. Confined to the connection's queue.
final class TLSByteStream: ByteStream {
    let fileDescriptor: Int32
    /// `SSL*`; nil only when OpenSSL could not allocate one, and then every read fails.
    private let connection: OpaquePointer?
    private let logger: Logger
    /// Whether the first byte has been looked at (a TLS record or a plain HTTP request).
    private var checkedFirstByte = false
    /// After a fatal error OpenSSL must not be asked to send close_notify.
    private var failed = false
    private var sentCloseNotify = false

    init(fileDescriptor: Int32, context: TLSContext) {
        self.fileDescriptor = fileDescriptor
        logger = context.logger
        connection = SSL_new(context.context)
        if let connection {
            SSL_set_fd(connection, fileDescriptor)
            SSL_set_accept_state(connection)
        }
        OpenSSLErrorQueue.clear()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> IOResult {
        guard let connection else { throw SocketError(call: "SSL_new", code: ENOMEM) }
        guard let base = buffer.baseAddress else { return .processed(0) }
        if !checkedFirstByte, let early = try inspectFirstByte() { return early }
        OpenSSLErrorQueue.clear()
        let count = SSL_read(connection, base, Int32(clamping: buffer.count))
        if count > 0 { return .processed(Int(count)) }
        return try outcome(of: count, in: "SSL_read")
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SocketError) -> IOResult {
        guard let connection else { throw SocketError(call: "SSL_new", code: ENOMEM) }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .processed(0) }
        OpenSSLErrorQueue.clear()
        let count = SSL_write(connection, base, Int32(clamping: bytes.count))
        if count > 0 { return .processed(Int(count)) }
        return try outcome(of: count, in: "SSL_write")
    }

    var hasBufferedInput: Bool {
        guard let connection, !failed else { return false }
        // With read-ahead, OpenSSL may hold raw records the socket will not signal again;
        // SSL_has_pending counts those as well as decrypted bytes.
        return SSL_has_pending(connection) == 1
    }

    /// No lingering: close_notify already tells the peer where the data ends, and an armed
    /// read source that sees the peer's reset (a client that leaves without reading our
    /// close_notify) crashes libdispatch's epoll manager under load (the muxnote
    /// use-after-free of swift-corelibs-libdispatch issue 949). `close` drains what has
    /// arrived instead, so a close with unread input rarely turns into RST.
    var lingersBeforeClose: Bool { false }

    func shutdownWrite() {
        sendCloseNotify()
        _ = shutdown(fileDescriptor, Int32(SHUT_WR))
    }

    func close(reset: Bool) {
        if !reset {
            sendCloseNotify()
            var discard = [UInt8](repeating: 0, count: 4096)
            for _ in 0..<4 where recv(fileDescriptor, &discard, discard.count, Int32(MSG_DONTWAIT)) > 0 {}
        }
        SSLCallOutcome.close(connection, fileDescriptor: fileDescriptor, reset: reset)
    }

    /// Tells the peer the stream ends here (RFC 8446 §6.1), once, without waiting for its
    /// answer.
    private func sendCloseNotify() {
        guard let connection, !failed, !sentCloseNotify else { return }
        sentCloseNotify = true
        SSLCallOutcome.sendCloseNotify(connection)
    }

    /// Turns a failed `SSL_read` or `SSL_write` into what the connection does next; a failed
    /// handshake is logged with OpenSSL's reasons.
    private func outcome(of result: Int32, in call: String) throws(SocketError) -> IOResult {
        switch SSLCallOutcome(result: result, connection: connection) {
        case .wouldBlock(let direction):
            return .wouldBlock(direction)
        case .endOfStream:
            return .endOfStream
        case .systemError(let code):
            failed = true
            if code == 0 { return .endOfStream }
            throw SocketError(call: call, code: code)
        case .protocolError(let reasons, let duringHandshake):
            failed = true
            if duringHandshake {
                logger.info(
                    "TLS handshake failed",
                    metadata: [
                        "peer": "\(PeerAddress.of(fileDescriptor))", "reason": "\(reasons.joined(separator: "; "))",
                    ])
            }
            throw SocketError(call: call, code: EPROTO)
        }
    }

    /// Every TLS connection starts with a handshake record (content type 22). A plain
    /// HTTP request instead starts with a method name: it gets a readable 400 before the
    /// close, where OpenSSL would only fail the handshake.
    private func inspectFirstByte() throws(SocketError) -> IOResult? {
        var byte: UInt8 = 0
        while true {
            let count = recv(fileDescriptor, &byte, 1, Int32(MSG_PEEK))
            if count == 1 { break }
            if count == 0 { return .endOfStream }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock(.read) }
            throw SocketError(call: "recv", code: code)
        }
        checkedFirstByte = true
        guard byte != 22 else { return nil }
        failed = true
        if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) {
            PlaintextRejection.answer(on: fileDescriptor)
            logger.info("plain HTTP request on the TLS port", metadata: ["peer": "\(PeerAddress.of(fileDescriptor))"])
        } else {
            logger.info(
                "TLS handshake failed",
                metadata: [
                    "peer": "\(PeerAddress.of(fileDescriptor))", "reason": "not a TLS record (first byte \(byte))",
                ])
        }
        throw SocketError(call: "TLS handshake", code: EPROTO)
    }
}
