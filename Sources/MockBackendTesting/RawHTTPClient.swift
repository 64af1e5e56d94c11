import MockBackendHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A response as `RawHTTPClient` read it off the wire.
public struct RawResponse: Sendable {
    public var version: String
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The head exactly as received, status line included.
    public var rawHead: String

    public var text: String { String(decoding: body, as: UTF8.self) }

    init(version: String, status: Int, headers: HTTPHeaders, body: [UInt8], rawHead: String) {
        self.version = version
        self.status = status
        self.headers = headers
        self.body = body
        self.rawHead = rawHead
    }

    /// A response as it would have been read: for answers that never crossed a socket.
    package init(version: String = "HTTP/1.1", status: Int, headers: HTTPHeaders, body: [UInt8]) {
        var head = "\(version) \(status)\r\n"
        for field in headers { head += "\(field.name): \(field.value)\r\n" }
        self.init(version: version, status: status, headers: headers, body: body, rawHead: head)
    }
}

/// How a connection ended, as seen by `RawHTTPClient.waitForClose`.
public enum RawCloseOutcome: Sendable, Equatable {
    /// The server sent FIN.
    case fin
    /// The server sent RST.
    case reset
    /// Nothing ended within the timeout.
    case stillOpen
}

/// Errors of `RawHTTPClient`.
public enum RawClientError: Error, Equatable {
    case connectFailed(Int32)
    case timedOut
    case closedByPeer
    case resetByPeer
    case malformedResponse(String)
}

/// A blocking loopback client that sends exact bytes and reads exact bytes, for tests
/// that must see the wire: pipelining, half-sent heads, resets, byte splits.
public final class RawHTTPClient {
    public let fileDescriptor: Int32
    /// Bytes received and not yet consumed by `readResponse`.
    public private(set) var buffer: [UInt8] = []
    private var isClosed = false

    /// Connects to `host:port`. A small `receiveBufferSize` makes a slow reader whose
    /// kernel buffer fills quickly.
    public init(port: Int, host: String = "127.0.0.1", receiveBufferSize: Int? = nil) throws {
        fileDescriptor = try Self.connectedSocket(port: port, host: host, receiveBufferSize: receiveBufferSize)
    }

    /// A blocking TCP socket connected to `host:port`, with `TCP_NODELAY`. The caller owns
    /// it and closes it.
    package static func connectedSocket(port: Int, host: String = "127.0.0.1", receiveBufferSize: Int? = nil)
        throws -> Int32
    {
        let fd = socket(AF_INET, Int32(streamSocketType), 0)
        guard fd >= 0 else { throw RawClientError.connectFailed(errno) }
        if var size = receiveBufferSize.map(Int32.init) {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            _ = closeSocket(fd)
            throw RawClientError.connectFailed(code)
        }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    deinit { close() }

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { sendNoSignal(fileDescriptor, $0.baseAddress!, $0.count) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw errno == ECONNRESET ? RawClientError.resetByPeer : RawClientError.closedByPeer
            }
            offset += sent
        }
    }

    /// Sends one GET with `headers` (CRLF-terminated lines) and reads its response.
    public func get(_ path: String, headers: String = "") async throws -> RawResponse {
        try send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n")
        return try await readResponse()
    }

    /// Half-closes: the server sees EOF, this side can still read.
    public func shutdownWrite() {
        _ = shutdown(fileDescriptor, Int32(shutdownWriteHow))
    }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = closeSocket(fileDescriptor)
    }

    /// Waits up to `timeout` for bytes and appends what arrives to `buffer`.
    /// Returns the count read: 0 means the server closed (FIN).
    ///
    /// The task suspends while it waits (`ReadinessPoller`), so a waiting test never holds
    /// one of the few threads Swift concurrency runs every task on.
    @discardableResult
    public func receive(timeout: Duration) async throws -> Int {
        try await receive(until: ContinuousClock.now + TestTiming.scaled(timeout))
    }

    /// Waits until `deadline` for bytes; see `receive(timeout:)`.
    private func receive(until deadline: ContinuousClock.Instant) async throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes {
                recv(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count >= 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return count
            }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else {
                if code == ECONNRESET { throw RawClientError.resetByPeer }
                throw RawClientError.closedByPeer
            }
            guard ContinuousClock.now < deadline else { throw RawClientError.timedOut }
            _ = await ReadinessPoller.shared.waitReadable(fileDescriptor, until: deadline)
        }
    }

    /// Reads until `buffer` holds `count` bytes or the deadline passes.
    public func receive(atLeast count: Int, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while buffer.count < count {
            let left = deadline - .now
            guard left > .zero else { throw RawClientError.timedOut }
            if try await receive(until: deadline) == 0 { throw RawClientError.closedByPeer }
        }
    }

    /// Reads until `buffer` contains `text` or the deadline passes.
    public func receive(untilContains text: String, timeout: Duration = .seconds(20)) async throws {
        let needle = Array(text.utf8)
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while Self.find(needle, in: buffer) == nil {
            let left = deadline - .now
            guard left > .zero else { throw RawClientError.timedOut }
            if try await receive(until: deadline) == 0 { throw RawClientError.closedByPeer }
        }
    }

    /// Takes and returns everything buffered.
    public func takeBuffer() -> [UInt8] {
        defer { buffer = [] }
        return buffer
    }

    /// Reads one whole response. `forHEAD` says the body is absent whatever the headers say.
    public func readResponse(timeout: Duration = .seconds(20), forHEAD: Bool = false) async throws -> RawResponse {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        func fill() async throws {
            let left = deadline - .now
            guard left > .zero else { throw RawClientError.timedOut }
            if try await receive(until: deadline) == 0 { throw RawClientError.closedByPeer }
        }
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.find([13, 10, 13, 10], in: buffer)
            if headEnd == nil { try await fill() }
        }
        let headBytes = Array(buffer[0..<headEnd!])
        buffer.removeFirst(headEnd! + 4)
        let rawHead = String(decoding: headBytes, as: UTF8.self)
        var lines = rawHead.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawClientError.malformedResponse(rawHead)
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw RawClientError.malformedResponse(line) }
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        var response = RawResponse(
            version: String(statusLine[0]), status: status, headers: headers, body: [], rawHead: rawHead)
        if forHEAD || (100..<200).contains(status) || status == 204 || status == 304 { return response }
        if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
            while true {
                var lineEnd = Self.find([13, 10], in: buffer)
                while lineEnd == nil {
                    try await fill()
                    lineEnd = Self.find([13, 10], in: buffer)
                }
                let sizeText = String(decoding: buffer[0..<lineEnd!], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else {
                    throw RawClientError.malformedResponse("chunk size \(sizeText)")
                }
                buffer.removeFirst(lineEnd! + 2)
                while buffer.count < size + 2 { try await fill() }
                response.body.append(contentsOf: buffer[0..<size])
                buffer.removeFirst(size + 2)
                if size == 0 { return response }
            }
        }
        if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            while buffer.count < length { try await fill() }
            response.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
            return response
        }
        // Delimited by close.
        while true {
            let left = deadline - .now
            guard left > .zero else { throw RawClientError.timedOut }
            if try await receive(until: deadline) == 0 { break }
        }
        response.body = takeBuffer()
        return response
    }

    /// Waits for the server to end the connection and tells how it did.
    public func waitForClose(timeout: Duration = .seconds(20)) async -> RawCloseOutcome {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while true {
            let left = deadline - .now
            guard left > .zero else { return .stillOpen }
            do {
                if try await receive(until: deadline) == 0 { return .fin }
            } catch RawClientError.resetByPeer {
                return .reset
            } catch RawClientError.timedOut {
                return .stillOpen
            } catch {
                return .fin
            }
        }
    }

    /// The body bytes after the head in `buffer`, with chunk framing removed; a partial
    /// last chunk gives what has arrived of it. For reading streams that never end.
    public var streamedBody: [UInt8] {
        guard let headEnd = Self.find([13, 10, 13, 10], in: buffer) else { return [] }
        var bytes = buffer[(headEnd + 4)...]
        var output: [UInt8] = []
        while let lineEnd = Self.find([13, 10], in: Array(bytes)).map({ bytes.startIndex + $0 }),
            let size = Int(String(decoding: bytes[bytes.startIndex..<lineEnd], as: UTF8.self), radix: 16), size > 0
        {
            let start = lineEnd + 2
            let end = min(start + size, bytes.endIndex)
            output.append(contentsOf: bytes[start..<end])
            guard end + 2 <= bytes.endIndex else { break }
            bytes = bytes[(end + 2)...]
        }
        return output
    }

    /// The index where `needle` first occurs in `haystack`.
    public static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}

#if canImport(Glibc)
private let streamSocketType = Int32(SOCK_STREAM.rawValue)
private let shutdownWriteHow = Int32(SHUT_WR)
private func closeSocket(_ fd: Int32) -> Int32 { Glibc.close(fd) }
private func sendNoSignal(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL))
}
#elseif canImport(Darwin)
private let streamSocketType = SOCK_STREAM
private let shutdownWriteHow = SHUT_WR
private func closeSocket(_ fd: Int32) -> Int32 { Darwin.close(fd) }
private func sendNoSignal(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    var one: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    return Darwin.send(fd, pointer, count, 0)
}
#endif
