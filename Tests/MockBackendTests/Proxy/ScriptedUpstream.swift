import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP server on 127.0.0.1 that answers every connection with the same script of writes,
/// pauses and endings, whatever the request: the broken upstreams a proxy must survive
/// (no answer, a malformed head, a head that never ends, a body cut mid-chunk). It reads
/// each request's head before it starts, and keeps the heads it read.
final class ScriptedUpstream: @unchecked Sendable {
    enum Step: Sendable {
        case write(String)
        case writeBytes([UInt8])
        case pause(Duration)
        /// Writes `count` bytes of `X` in pieces, as a head that goes on and on.
        case flood(count: Int)
        /// FIN.
        case close
        /// RST (SO_LINGER 0).
        case reset
        /// Keeps the connection open, silent, until `stop()`.
        case hold
        /// Reads the request body until `count` bytes of it have arrived (`receivedBody`).
        case readBody(count: Int)
        /// Reads a chunked request body until its last chunk.
        case readChunkedBody
        /// Reads the request body until the proxy closes or resets the connection
        /// (`bodyEnding`).
        case readUntilClosed
    }

    /// How reading the body ended under `readUntilClosed`.
    enum BodyEnding: Equatable {
        case closed
        case reset
    }

    let port: Int
    private let listener: Int32
    private let steps: [Step]
    private let lock = NSLock()
    private var connections: [Int32] = []
    private var heads: [String] = []
    private var body: [UInt8] = []
    private var ending: BodyEnding?
    private var accepted = 0
    private var stopped = false

    init(_ steps: [Step]) throws {
        self.steps = steps
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Connections accepted so far.
    var acceptedConnections: Int { lock.withLock { accepted } }

    /// The request heads read so far.
    var receivedHeads: [String] { lock.withLock { heads } }

    /// The bytes read after the heads so far, as they came (a chunked body still chunked).
    var receivedBody: [UInt8] { lock.withLock { body } }

    /// How `readUntilClosed` ended; nil while it reads.
    var bodyEnding: BodyEnding? { lock.withLock { ending } }

    /// Closes the listener and every connection still open.
    func stop() {
        let open: [Int32] = lock.withLock {
            stopped = true
            defer { connections = [] }
            return connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            let keep = lock.withLock { () -> Bool in
                guard !stopped else { return false }
                connections.append(fd)
                accepted += 1
                return true
            }
            guard keep else {
                close(fd)
                return
            }
            Thread.detachNewThread { [self] in serve(fd) }
        }
    }

    private func serve(_ fd: Int32) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.containsHeadEnd {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return finish(fd) }
            received += buffer[0..<count]
        }
        let headEnd = received.headEnd!
        lock.withLock {
            heads.append(String(decoding: received[..<headEnd], as: UTF8.self))
            body += received[headEnd...]
        }
        for step in steps {
            switch step {
            case .write(let text): send(Array(text.utf8), on: fd)
            case .writeBytes(let bytes): send(bytes, on: fd)
            case .pause(let duration):
                Thread.sleep(
                    forTimeInterval: Double(duration.components.seconds) + Double(duration.components.attoseconds)
                        / 1e18)
            case .flood(let count):
                let piece = [UInt8](repeating: UInt8(ascii: "X"), count: 16 * 1024)
                var sent = 0
                while sent < count, send(piece, on: fd) { sent += piece.count }
            case .close: return finish(fd)
            case .reset:
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                return finish(fd)
            case .hold: return
            case .readBody(let count):
                while receivedBody.count < count {
                    let got = read(fd, &buffer, buffer.count)
                    guard got > 0 else { return finish(fd) }
                    lock.withLock { body += buffer[0..<got] }
                }
            case .readChunkedBody:
                while !receivedBody.ends(with: Array("0\r\n\r\n".utf8)) {
                    let got = read(fd, &buffer, buffer.count)
                    guard got > 0 else { return finish(fd) }
                    lock.withLock { body += buffer[0..<got] }
                }
            case .readUntilClosed:
                while true {
                    let got = read(fd, &buffer, buffer.count)
                    if got > 0 {
                        lock.withLock { body += buffer[0..<got] }
                        continue
                    }
                    let outcome: BodyEnding = got < 0 && errno == ECONNRESET ? .reset : .closed
                    lock.withLock { ending = outcome }
                    return finish(fd)
                }
            }
        }
        finish(fd)
    }

    @discardableResult
    private func send(_ bytes: [UInt8], on fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a proxy that gave up on this answer must not stop the test process.
            let written = bytes[offset...].withUnsafeBytes { Self.sendNoSignal(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    private static func sendNoSignal(_ fd: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL))
        #else
        Darwin.send(fd, pointer, count, 0)
        #endif
    }

    private func finish(_ fd: Int32) {
        let owned = lock.withLock { () -> Bool in
            guard let index = connections.firstIndex(of: fd) else { return false }
            connections.remove(at: index)
            return true
        }
        if owned { close(fd) }
    }
}

extension [UInt8] {
    fileprivate var containsHeadEnd: Bool { headEnd != nil }

    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }

    /// The index just past the first CRLF CRLF.
    fileprivate var headEnd: Int? {
        guard count >= 4 else { return nil }
        for index in 0...(count - 4)
        where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return index + 4
        }
        return nil
    }
}
