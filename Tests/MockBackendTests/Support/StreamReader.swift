import Foundation
import MockBackendTesting

/// One event stream read as it arrives, over HTTP/1.0 so the body is the raw event stream.
/// Only the `id:` lines are looked at (the events here all carry one): megabytes of events
/// are scanned with `memchr`, cheap enough not to slow the server down in a debug or
/// sanitizer build.
final class StreamReader {
    let client: RawHTTPClient
    private var head: [UInt8]? = []
    /// Unscanned bytes from a line end that may begin an `id:` line on. The body is taken
    /// to begin with a line end, so its first line is found like the others.
    private var pending: [UInt8] = [10]
    private(set) var ids: [String] = []

    init(
        _ server: RunningServer, _ path: String, clientID: String, lastEventID: String? = nil,
        receiveBufferSize: Int? = nil
    ) throws {
        client = try RawHTTPClient(port: server.port, receiveBufferSize: receiveBufferSize)
        let resume = lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? ""
        try client.send("GET \(path) HTTP/1.0\r\nX-Client-Id: \(clientID)\r\n\(resume)\r\n")
    }

    /// Notes the ids of what has been read so far.
    private func parse() {
        if var bytes = head {
            bytes += client.takeBuffer()
            guard let end = RawHTTPClient.find([13, 10, 13, 10], in: bytes) else {
                head = bytes
                return
            }
            pending += bytes[(end + 4)...]
            head = nil
        } else {
            pending += client.takeBuffer()
        }
        let prefix = Array("\nid: ".utf8)
        let count = pending.count
        var keepFrom = count
        pending.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var index = 0
            while let found = memchr(base + index, 10, count - index) {
                let lineStart = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                guard lineStart + prefix.count <= count else {
                    keepFrom = lineStart
                    return
                }
                guard buffer[lineStart..<lineStart + prefix.count].elementsEqual(prefix) else {
                    index = lineStart + 1
                    continue
                }
                let idStart = lineStart + prefix.count
                guard let lineEnd = memchr(base + idStart, 10, count - idStart) else {
                    keepFrom = lineStart
                    return
                }
                let idEnd = base.distance(to: lineEnd.assumingMemoryBound(to: UInt8.self))
                ids.append(String(decoding: buffer[idStart..<idEnd], as: UTF8.self))
                index = idEnd
            }
        }
        pending.removeFirst(keepFrom)
    }

    /// Reads until the event with `id` has arrived.
    func read(until id: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while ids.last != id {
            guard ContinuousClock.now < deadline else { throw RawClientError.timedOut }
            do {
                if try await client.receive(timeout: .seconds(1)) == 0 { throw RawClientError.closedByPeer }
            } catch RawClientError.timedOut {
                continue  // a flood may pause while it waits for another reader
            }
            parse()
        }
    }

    /// Reads what the server sent until it closed the connection.
    func readToClose() async throws {
        while (try? await client.receive(timeout: .milliseconds(500))) ?? 0 > 0 {}
        parse()
    }
}

func postRequest(_ server: RunningServer, _ path: String, _ body: String) throws -> RawHTTPClient {
    let client = try server.connect()
    try client.send("POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    return client
}
