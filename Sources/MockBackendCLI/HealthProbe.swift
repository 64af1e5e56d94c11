#if canImport(Glibc)
import MockBackendSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An `http://` URL taken apart for `HealthProbe`: host, port and request target.
struct ProbeURL: Equatable, CustomStringConvertible {
    var host: String
    var port: Int
    /// Path and query, as sent in the request line.
    var target: String

    /// Parses `http://HOST[:PORT][/PATH][?QUERY]`; HOST may be a name, an IPv4 literal or a
    /// bracketed IPv6 literal. Returns nil for anything else (other schemes, user info,
    /// a bad port), so the caller can say so before any connection is tried.
    init?(_ text: String) {
        let scheme = "http://"
        guard text.lowercased().hasPrefix(scheme) else { return nil }
        let rest = text.dropFirst(scheme.count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...].prefix { $0 != "#" })
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        guard !authority.contains("@") else { return nil }

        let hostPart: Substring
        let portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            portPart = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = authority.firstIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        } else {
            hostPart = authority
            portPart = nil
        }
        guard !hostPart.isEmpty, !target.contains(where: { $0 == " " || $0.isNewline }) else { return nil }
        if let portPart {
            guard let port = Int(portPart), (1...65535).contains(port) else { return nil }
            self.port = port
        } else {
            self.port = 80
        }
        self.host = String(hostPart)
        self.target = target
    }

    /// The host as written in a `Host` header or a message: IPv6 literals in brackets.
    var authority: String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    var description: String { "http://\(authority)\(target)" }
}

/// Why a probe got no status line.
struct HealthProbeError: Error, CustomStringConvertible {
    let description: String
}

/// One blocking `GET` over a plain TCP socket, bounded by a deadline, that reads just the
/// status line. `mockbackend health` uses it so a container image needs neither curl nor
/// libcurl (URLSession on Linux loads libcurl at run time).
struct HealthProbe {
    let url: ProbeURL
    /// The whole probe — name lookup aside — ends by then: connect, send and read.
    let timeout: Duration

    /// Status code and reason phrase of the response.
    func run() throws(HealthProbeError) -> (status: Int, reason: String) {
        let deadline = ContinuousClock.now + timeout
        let fd = try openConnection(deadline: deadline)
        defer { _ = close(fd) }
        let request =
            "GET \(url.target) HTTP/1.1\r\nHost: \(url.authority)\r\nUser-Agent: mockbackend-health\r\n"
            + "Accept: */*\r\nConnection: close\r\n\r\n"
        try send(Array(request.utf8), on: fd, deadline: deadline)
        return try readStatusLine(from: fd, deadline: deadline)
    }

    /// Tries each address the host resolves to until one accepts.
    private func openConnection(deadline: ContinuousClock.Instant) throws(HealthProbeError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = probeStreamSocketType
        hints.ai_flags = AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(url.host, String(url.port), &hints, &results)
        guard status == 0, let first = results else {
            throw HealthProbeError(
                description: "cannot resolve \(url.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(results) }

        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            probeDisableSIGPIPE(fd)
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                return fd
            }
            var code = errno
            if code == EINPROGRESS {
                guard wait(fd, for: Int16(POLLOUT), until: deadline) else {
                    _ = close(fd)
                    throw timedOut
                }
                var length = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
                if code == 0 { return fd }
            }
            lastError = String(cString: strerror(code))
            _ = close(fd)
        }
        throw HealthProbeError(description: "cannot connect to \(url.authority): \(lastError)")
    }

    private func send(_ bytes: [UInt8], on fd: Int32, deadline: ContinuousClock.Instant) throws(HealthProbeError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { probeSend(fd, $0.baseAddress!, $0.count) }
            if sent >= 0 {
                offset += sent
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                guard wait(fd, for: Int16(POLLOUT), until: deadline) else { throw timedOut }
            } else {
                throw HealthProbeError(description: "sending to \(url.authority): \(String(cString: strerror(errno)))")
            }
        }
    }

    private func readStatusLine(
        from fd: Int32, deadline: ContinuousClock.Instant
    ) throws(HealthProbeError) -> (status: Int, reason: String) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !received.contains(0x0A) {
            guard received.count < 8192 else { break }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: chunk[0..<count])
            } else if count == 0 {
                break
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                guard wait(fd, for: Int16(POLLIN), until: deadline) else { throw timedOut }
            } else {
                throw HealthProbeError(
                    description: "reading from \(url.authority): \(String(cString: strerror(errno)))")
            }
        }
        guard let end = received.firstIndex(of: 0x0A) else {
            throw HealthProbeError(
                description: received.isEmpty
                    ? "\(url.authority) closed the connection without answering"
                    : "\(url.authority) sent no status line")
        }
        let line = String(decoding: received[..<end].filter { $0 != 0x0D }, as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), parts[1].count == 3, let status = Int(parts[1]) else {
            throw HealthProbeError(
                description: "\(url.authority) answered something other than HTTP: \(line.prefix(80))")
        }
        return (status, parts.count > 2 ? String(parts[2]) : "")
    }

    private var timedOut: HealthProbeError {
        HealthProbeError(description: "no answer from \(url.authority) within \(timeout)")
    }

    /// Polls `fd` for `events` until the deadline; false when it passed first.
    private func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = deadline - .now
            guard left > .zero else { return false }
            let milliseconds = left.wholeMilliseconds
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let result = poll(&poller, 1, Int32(min(max(milliseconds, 1), 60_000)))
            if result > 0 { return true }
            if result < 0, errno != EINTR { return true }  // let the next call report the error
        }
    }
}

#if canImport(Glibc)
private let probeStreamSocketType = Int32(SOCK_STREAM.rawValue)

/// `send` that never raises SIGPIPE on a peer that went away.
private func probeSend(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL))
}

private func probeDisableSIGPIPE(_ fd: Int32) {}
#elseif canImport(Darwin)
private let probeStreamSocketType = SOCK_STREAM

private func probeSend(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    Darwin.send(fd, pointer, count, 0)
}

/// Darwin has no `MSG_NOSIGNAL`; the socket itself is told instead.
private func probeDisableSIGPIPE(_ fd: Int32) {
    var one: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
}
#endif
