#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP socket as a `ByteStream`: the one doorway to `read`/`send` that retries
/// `EINTR` and turns `EAGAIN` into `.wouldBlock`.
package final class TCPByteStream: ByteStream {
    package let fileDescriptor: Int32

    /// Takes ownership of a connected, non-blocking socket.
    package init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> IOResult {
        guard let base = buffer.baseAddress else { return .processed(0) }
        while true {
            let count = Platform.read(fileDescriptor, base, buffer.count)
            if count > 0 { return .processed(count) }
            if count == 0 { return .endOfStream }
            let code = Platform.errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock(.read) }
            throw SocketError(call: "read", code: code)
        }
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(SocketError) -> IOResult {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .processed(0) }
        while true {
            let count = Platform.send(fileDescriptor, base, bytes.count)
            if count >= 0 { return count == 0 ? .wouldBlock(.write) : .processed(count) }
            let code = Platform.errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock(.write) }
            throw SocketError(call: "send", code: code)
        }
    }

    package var hasBufferedInput: Bool { false }

    /// A TCP read returns everything the socket holds, up to the buffer's size.
    package var shortReadDrainsSocket: Bool { true }

    package var lingersBeforeClose: Bool { true }

    package func shutdownWrite() {
        Platform.shutdownWrite(fileDescriptor)
    }

    package func close(reset: Bool) {
        if reset {
            // SO_LINGER with a zero timeout makes close() send RST and drop unsent data.
            var option = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(
                fileDescriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        }
        _ = Platform.closeFD(fileDescriptor)
    }
}
