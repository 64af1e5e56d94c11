#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A resolved address to connect to, as the bytes of its `sockaddr`.
package struct SocketAddress: Sendable, Equatable {
    let family: Int32
    let bytes: [UInt8]
}

/// Name resolution and non-blocking connects for upstream connections.
package enum SocketConnector {
    /// The addresses of `host:port`, in the resolver's order. Blocks while the resolver
    /// works (`getaddrinfo`): call it off the event loops. Nil with why when there are none.
    package static func resolve(host: String, port: Int) -> Result<[SocketAddress], SocketError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Platform.streamSocketType
        hints.ai_flags = AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            let reason = String(cString: gai_strerror(status))
            return .failure(SocketError(call: "resolving \(host) (\(reason))", code: EHOSTUNREACH))
        }
        defer { freeaddrinfo(results) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            guard let pointer = info.pointee.ai_addr else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: pointer, count: Int(info.pointee.ai_addrlen)))
            let address = SocketAddress(family: info.pointee.ai_family, bytes: bytes)
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses.isEmpty
            ? .failure(SocketError(call: "resolving \(host) (no address)", code: EHOSTUNREACH)) : .success(addresses)
    }

    /// A non-blocking, close-on-exec socket connecting to `address` (`TCP_NODELAY` on): the
    /// connect goes on in the kernel, and its outcome shows on the socket's first write or
    /// read (a refused connect fails them with `ECONNREFUSED`).
    package static func startConnect(to address: SocketAddress) -> Result<Int32, SocketError> {
        let fd = socket(address.family, Platform.streamSocketType, 0)
        guard fd >= 0 else { return .failure(.lastError("socket")) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        Platform.disableSIGPIPE(fd)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = address.bytes.withUnsafeBytes { buffer in
            connect(fd, buffer.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(buffer.count))
        }
        if result == 0 || Platform.errno == EINPROGRESS || Platform.errno == EINTR { return .success(fd) }
        let error = SocketError.lastError("connect")
        _ = Platform.closeFD(fd)
        return .failure(error)
    }
}
