#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bound, listening, non-blocking TCP socket.
///
/// `SO_REUSEADDR` is set so a restarted server can bind at once; `SO_REUSEPORT` is not, so a
/// second instance on the same port fails loudly instead of silently sharing it.
struct ListeningSocket {
    let fileDescriptor: Int32
    /// The port actually bound (the kernel's choice when asked for port 0).
    let port: Int

    /// Resolves `host` (a name or a literal address) and binds the first address that works.
    static func bind(host: String, port: Int, backlog: Int32 = 1024) throws(SocketError) -> ListeningSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Platform.streamSocketType
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            throw SocketError(call: "getaddrinfo(\(host))", code: status == EAI_SYSTEM ? Platform.errno : EINVAL)
        }
        defer { freeaddrinfo(results) }

        var lastError = SocketError(call: "bind", code: EADDRNOTAVAIL)
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else {
                lastError = .lastError("socket")
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            guard Platform.bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
                lastError = .lastError("bind \(host):\(port)")
                _ = Platform.closeFD(fd)
                continue
            }
            guard listen(fd, backlog) == 0 else {
                lastError = .lastError("listen")
                _ = Platform.closeFD(fd)
                continue
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            return ListeningSocket(fileDescriptor: fd, port: boundPort(fd) ?? port)
        }
        throw lastError
    }

    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        return withUnsafePointer(to: &storage) { pointer in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            default:
                nil
            }
        }
    }
}
