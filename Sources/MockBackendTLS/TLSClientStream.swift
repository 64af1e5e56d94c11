import COpenSSL
import MockBackendHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One upstream TLS connection as a `ByteStream`: OpenSSL in client mode on a non-blocking
/// socket whose connect may still be under way. The handshake runs inside the first write
/// (the client speaks first), driven by the channel's own read and write readiness
/// (`SSL_ERROR_WANT_READ`/`WANT_WRITE` become `.wouldBlock`). A handshake that fails — a
/// certificate that does not verify, a name that does not match — throws a `SocketError`
/// whose `call` says why, for the 502 the client gets. Confined to the connection's queue.
final class TLSClientStream: ByteStream {
    let fileDescriptor: Int32
    /// `SSL*`; nil only when OpenSSL could not allocate one, and then every call fails.
    private let connection: OpaquePointer?
    private var failed = false
    private var sentCloseNotify = false

    init(fileDescriptor: Int32, context: TLSClientContext, serverName: String) {
        self.fileDescriptor = fileDescriptor
        OpenSSLErrorQueue.clear()
        connection = SSL_new(context.context)
        if let connection {
            SSL_set_fd(connection, fileDescriptor)
            SSL_set_connect_state(connection)
            let isAddress = serverName.contains(":") || serverName.allSatisfy { $0.isNumber || $0 == "." }
            // SNI carries names only (RFC 6066 §3); an address is checked as one.
            if !isAddress { _ = mockbackend_SSL_set_server_name(connection, serverName) }
            if context.verifiesPeer {
                if isAddress {
                    _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(connection), serverName)
                } else {
                    _ = SSL_set1_host(connection, serverName)
                }
            }
        }
        OpenSSLErrorQueue.clear()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> IOResult {
        guard let connection else { throw SocketError(call: "SSL_new", code: ENOMEM) }
        guard let base = buffer.baseAddress else { return .processed(0) }
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
        return SSL_has_pending(connection) == 1
    }

    var lingersBeforeClose: Bool { false }

    func shutdownWrite() {
        sendCloseNotify()
        _ = shutdown(fileDescriptor, Int32(SHUT_WR))
    }

    func close(reset: Bool) {
        if !reset { sendCloseNotify() }
        SSLCallOutcome.close(connection, fileDescriptor: fileDescriptor, reset: reset)
    }

    private func sendCloseNotify() {
        guard let connection, !failed, !sentCloseNotify else { return }
        sentCloseNotify = true
        SSLCallOutcome.sendCloseNotify(connection)
    }

    /// Turns a failed call into what the connection does next; a failed handshake names
    /// why, the certificate check's verdict included.
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
        case .protocolError(var reasons, let duringHandshake):
            failed = true
            guard duringHandshake else { throw SocketError(call: call, code: EPROTO) }
            if let connection {
                let verification = SSL_get_verify_result(connection)
                if verification != X509_V_OK, let text = X509_verify_cert_error_string(verification) {
                    reasons.append(String(cString: text))
                }
            }
            throw SocketError(call: "TLS handshake (\(reasons.joined(separator: "; ")))", code: EPROTO)
        }
    }
}
