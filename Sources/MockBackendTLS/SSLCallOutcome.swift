import COpenSSL
import MockBackendHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a failed `SSL_read` or `SSL_write` means, on either side of a connection
/// (`TLSByteStream` serving, `TLSClientStream` calling an upstream): another try once the
/// socket is ready in a direction, the end of the stream, or a failure.
enum SSLCallOutcome {
    case wouldBlock(IODirection)
    case endOfStream
    /// The socket failed with this `errno`; 0 when the peer closed it without close_notify
    /// (read as the end of the stream, but the connection is broken).
    case systemError(Int32)
    /// TLS itself failed; `reasons` are OpenSSL's, `duringHandshake` whether the handshake
    /// had not finished (a certificate refused, no common protocol).
    case protocolError(reasons: [String], duringHandshake: Bool)

    /// Classifies `result`, the return of a call on `connection`, and clears OpenSSL's
    /// error queue.
    init(result: Int32, connection: OpaquePointer?) {
        switch SSL_get_error(connection, result) {
        case SSL_ERROR_WANT_READ:
            self = .wouldBlock(.read)
        case SSL_ERROR_WANT_WRITE:
            self = .wouldBlock(.write)
        case SSL_ERROR_ZERO_RETURN:
            self = .endOfStream
        case SSL_ERROR_SYSCALL:
            let systemError = errno
            OpenSSLErrorQueue.clear()
            self = .systemError(systemError)
        default:
            let reasons = OpenSSLErrorQueue.drain()
            let duringHandshake = connection.map { SSL_is_init_finished($0) != 1 } ?? true
            self = .protocolError(reasons: reasons, duringHandshake: duringHandshake)
        }
    }

    /// Sends close_notify (RFC 8446 §6.1) on a connection whose handshake finished, without
    /// waiting for the peer's.
    static func sendCloseNotify(_ connection: OpaquePointer) {
        guard SSL_is_init_finished(connection) == 1 else { return }
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(connection)
        OpenSSLErrorQueue.clear()
    }

    /// Frees `connection` and closes its socket; with `reset`, as RST (SO_LINGER 0).
    static func close(_ connection: OpaquePointer?, fileDescriptor: Int32, reset: Bool) {
        if reset {
            var option = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(fileDescriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        }
        if let connection { SSL_free(connection) }
        #if canImport(Glibc)
        _ = Glibc.close(fileDescriptor)
        #else
        _ = Darwin.close(fileDescriptor)
        #endif
    }
}
