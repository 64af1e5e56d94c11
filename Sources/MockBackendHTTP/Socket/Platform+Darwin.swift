#if canImport(Darwin)
import Darwin

/// The handful of calls whose spelling differs between Linux and Darwin.
enum Platform {
    static var errno: Int32 { Darwin.errno }

    static func errorMessage(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    static let streamSocketType = SOCK_STREAM

    /// `send` that never raises SIGPIPE: Darwin has no `MSG_NOSIGNAL`, so every accepted
    /// socket gets `SO_NOSIGPIPE` (see `disableSIGPIPE`).
    static func send(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        Darwin.send(fd, pointer, count, 0)
    }

    /// Accepts a connection and makes it non-blocking and close-on-exec.
    static func accept(_ fd: Int32) -> Int32 {
        let client = Darwin.accept(fd, nil, nil)
        guard client >= 0 else { return client }
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        disableSIGPIPE(client)
        return client
    }

    static func disableSIGPIPE(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    static func bind(_ fd: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
        Darwin.bind(fd, address, length)
    }

    static func closeFD(_ fd: Int32) -> Int32 { Darwin.close(fd) }

    /// Active processors (Darwin has no affinity masks).
    static var usableProcessorCount: Int { max(1, Int(sysconf(_SC_NPROCESSORS_ONLN))) }
    static func shutdownWrite(_ fd: Int32) { _ = Darwin.shutdown(fd, SHUT_WR) }
    /// Darwin's allocator returns freed memory by itself.
    static func releaseFreedMemory() {}

    static func read(_ fd: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        Darwin.read(fd, pointer, count)
    }

    /// Whether the socket holds received bytes not read yet; they stay there (`MSG_PEEK`).
    /// False at end of stream and on errors.
    static func hasUnreadBytes(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = Darwin.recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if count < 0, errno == EINTR { continue }
            return count > 0
        }
    }
}
#endif
