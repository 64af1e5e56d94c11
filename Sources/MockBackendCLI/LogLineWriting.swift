#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The writes of `LogLineQueue`'s writer thread: lines joined into one buffer and written
/// whole, as slowly as the reader takes them.
enum LogLineWriting {
    /// Writes `lines` to `fileDescriptor`, blocking until the reader has taken them: a
    /// partial write goes on from where it stopped, EINTR is retried, and a descriptor that
    /// is non-blocking (a pipe its reader made so) is waited on with `poll`. Returns how many
    /// lines were lost to an error (a reader that closed the pipe: EPIPE, with SIGPIPE
    /// ignored by the server), counted from the first line not written whole.
    static func write(_ lines: [[UInt8]], to fileDescriptor: Int32) -> Int {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(lines.reduce(0) { $0 + $1.count })
        for line in lines { buffer += line }
        var offset = 0
        let failed = buffer.withUnsafeBytes { bytes -> Bool in
            guard let base = bytes.baseAddress else { return false }
            while offset < bytes.count {
                let written = systemWrite(fileDescriptor, base + offset, bytes.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno == EAGAIN || errno == EWOULDBLOCK {
                    var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, -1)
                } else if errno != EINTR {
                    return true
                }
            }
            return false
        }
        guard failed else { return 0 }
        var end = 0
        for (index, line) in lines.enumerated() {
            end += line.count
            if end > offset { return lines.count - index }
        }
        return 0
    }

    private static func systemWrite(_ fileDescriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fileDescriptor, bytes, count)
        #else
        Darwin.write(fileDescriptor, bytes, count)
        #endif
    }
}
