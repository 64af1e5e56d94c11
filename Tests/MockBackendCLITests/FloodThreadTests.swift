import Foundation
import MockBackendTesting
import TestSupport
import Testing

/// A flood waits for its slowest readers without holding threads: its patience is a
/// scheduled check and its waits are callbacks on the event loops, so the process's threads
/// stay within a small bound while 20 MB go to five readers that never read.
@Suite("Floods hold no threads")
struct FloodThreadTests {
    /// The process's threads now.
    private static func threads(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }

    @Test func aFloodToReadersThatNeverReadKeepsTheThreadsBounded() async throws {
        let server = try ServerProcess(["--port", "0", "--log-level", "warning"])
        let port = try await server.waitForListening()
        let pid = server.process.processIdentifier
        let before = Self.threads(of: pid)
        var readers: [RawHTTPClient] = []
        for _ in 0..<5 {
            let reader = try RawHTTPClient(port: port, receiveBufferSize: 4096)
            try reader.send("GET /sse/channels/flood HTTP/1.1\r\nHost: t\r\n\r\n")
            readers.append(reader)
        }
        let payload = String(repeating: "x", count: 2000)
        let flood = try RawHTTPClient(port: port)
        let body = #"{"data":"\#(payload)","count":10000}"#
        try flood.send(
            "POST /__admin/streams/channels/flood/events HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        var peak = before
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            peak = max(peak, Self.threads(of: pid))
            if (try? await flood.receive(timeout: .milliseconds(50))) ?? 0 > 0, flood.buffer.count > 0 { break }
        }
        let answer = try await flood.readResponse()
        #expect(answer.status == 200)
        #expect(answer.text.contains(#""id":"10000""#))
        #expect(peak <= before + 8, "threads: \(before) at start, \(peak) at most during the flood")
        for reader in readers { reader.close() }
    }
}
