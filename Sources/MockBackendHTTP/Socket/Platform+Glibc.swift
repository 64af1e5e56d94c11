#if canImport(Glibc)
import Glibc

/// The handful of calls whose spelling differs between Linux and Darwin.
enum Platform {
    static var errno: Int32 { Glibc.errno }

    static func errorMessage(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    static let streamSocketType = Int32(SOCK_STREAM.rawValue)

    /// `send` that never raises SIGPIPE on a peer that went away.
    static func send(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL))
    }

    /// Accepts a connection and makes it non-blocking and close-on-exec: accepted sockets
    /// do not inherit `O_NONBLOCK` from the listener (`accept4` is not visible to Swift).
    static func accept(_ fd: Int32) -> Int32 {
        let client = Glibc.accept(fd, nil, nil)
        guard client >= 0 else { return client }
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return client
    }

    /// Per-socket SIGPIPE suppression is not needed on Linux: `MSG_NOSIGNAL` covers it.
    static func disableSIGPIPE(_ fd: Int32) {}

    static func bind(_ fd: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
        Glibc.bind(fd, address, length)
    }

    static func closeFD(_ fd: Int32) -> Int32 { Glibc.close(fd) }
    static func shutdownWrite(_ fd: Int32) { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }

    /// Processors in this process's affinity mask (`taskset`, container CPU sets), which
    /// can be fewer than the machine has. Read from `Cpus_allowed` in /proc/self/status:
    /// `sched_getaffinity` is not visible to Swift.
    static var usableProcessorCount: Int {
        let online = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        guard let file = fopen("/proc/self/status", "r") else { return online }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("Cpus_allowed:") else { continue }
            let count = text.dropFirst("Cpus_allowed:".count).reduce(0) { total, character in
                total + (character.hexDigitValue?.nonzeroBitCount ?? 0)
            }
            return min(online, max(1, count))
        }
        return online
    }

    /// Hands memory freed by the allocator back to the system (glibc keeps it otherwise, so
    /// RSS stays at its peak after thousands of streams close). `malloc_trim` is looked up
    /// at run time: it is glibc's and not visible to Swift.
    static func releaseFreedMemory() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

    static func read(_ fd: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        Glibc.read(fd, pointer, count)
    }

    /// Whether the socket holds received bytes not read yet; they stay there (`MSG_PEEK`).
    /// False at end of stream and on errors.
    static func hasUnreadBytes(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = Glibc.recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if count < 0, errno == EINTR { continue }
            return count > 0
        }
    }
}
#endif
