import COpenSSL
import Foundation
import MockBackendTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback client socket for tests, plain or TLS (OpenSSL in client mode, the server's
/// certificate not checked, ALPN offering one protocol). Connected (as `RawHTTPClient`
/// connects; this owns the descriptor) and handshaken in
/// `init`, non-blocking afterwards: `read` says `.wouldBlock` rather than wait, so the
/// caller can let go of its lock between reads. Not thread-safe: the owner serialises calls.
final class TLSTestSocket {
    enum ReadOutcome {
        case bytes(Int)
        case wouldBlock
        /// The peer closed; `reset` when it was RST rather than FIN (or close_notify).
        case closed(reset: Bool)
    }

    enum Failure: Error {
        case handshake(String)
        /// The server did not choose the protocol offered by ALPN.
        case alpn(offered: String, chosen: String)
    }

    private let fileDescriptor: Int32
    private let context: OpaquePointer?
    private let connection: OpaquePointer?
    private var isClosed = false

    init(port: Int, tls: Bool, alpn: String) throws {
        fileDescriptor = try RawHTTPClient.connectedSocket(port: port)
        guard tls else {
            context = nil
            connection = nil
            setNonBlocking()
            return
        }
        context = SSL_CTX_new(TLS_client_method())
        connection = SSL_new(context)
        SSL_set_fd(connection, fileDescriptor)
        let protocols = [UInt8(alpn.utf8.count)] + Array(alpn.utf8)
        _ = SSL_set_alpn_protos(connection, protocols, UInt32(protocols.count))
        guard SSL_connect(connection) == 1 else {
            let reason = ERR_reason_error_string(ERR_get_error()).map { String(cString: $0) } ?? "unknown"
            closeNow()
            throw Failure.handshake(reason)
        }
        var chosen: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(connection, &chosen, &length)
        let selected = chosen.map {
            String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self)
        }
        guard selected == alpn else {
            closeNow()
            throw Failure.alpn(offered: alpn, chosen: selected ?? "none")
        }
        setNonBlocking()
    }

    deinit {
        closeNow()
        SSL_free(connection)
        SSL_CTX_free(context)
    }

    /// Waits up to `milliseconds` for the socket to be readable. (TLS keeps no decrypted
    /// bytes between calls as long as the caller reads until `.wouldBlock`.)
    func waitReadable(milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    func read(into buffer: inout [UInt8]) -> ReadOutcome {
        let count = buffer.withUnsafeMutableBytes { bytes -> Int in
            if let connection { return Int(SSL_read(connection, bytes.baseAddress, Int32(bytes.count))) }
            return Glibc.read(fileDescriptor, bytes.baseAddress, bytes.count)
        }
        if count > 0 { return .bytes(count) }
        if let connection {
            switch SSL_get_error(connection, Int32(count)) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wouldBlock
            case SSL_ERROR_ZERO_RETURN: return .closed(reset: false)
            default: return .closed(reset: errno == ECONNRESET)
            }
        }
        if count == 0 { return .closed(reset: false) }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .wouldBlock }
        return .closed(reset: errno == ECONNRESET)
    }

    /// Writes all of `bytes`, waiting for room as needed; false when the connection is gone.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let pointer = bytes.baseAddress! + offset
            let remaining = bytes.count - offset
            let count: Int
            if let connection {
                count = Int(SSL_write(connection, pointer, Int32(remaining)))
                if count <= 0 {
                    let error = SSL_get_error(connection, Int32(count))
                    guard error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ else { return false }
                    waitWritable()
                    continue
                }
            } else {
                count = Glibc.write(fileDescriptor, pointer, remaining)
                if count < 0 {
                    guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return false }
                    waitWritable()
                    continue
                }
            }
            offset += count
        }
        return true
    }

    /// Stops both directions; the reading side sees the end.
    func shutdown() {
        guard !isClosed else { return }
        _ = Glibc.shutdown(fileDescriptor, Int32(SHUT_RDWR))
    }

    func close() { closeNow() }

    private func closeNow() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fileDescriptor)
    }

    private func waitWritable() {
        var entry = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0)
        _ = poll(&entry, 1, 1000)
    }

    private func setNonBlocking() {
        _ = fcntl(fileDescriptor, F_SETFL, fcntl(fileDescriptor, F_GETFL) | O_NONBLOCK)
    }
}
