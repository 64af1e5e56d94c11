import Foundation
import MockBackendTesting
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Logging never blocks serving: the real binary with its standard output on a pipe that
/// stops being read (a `docker logs` pipe nobody drains, a paused `| less`) goes on
/// answering at once, drops the log lines it cannot write, says how many in
/// `GET /__admin/state`, and logs the count once the pipe is read again.
@Suite("Logging with a stuck standard output", .serialized)
struct LogPipeTests {
    /// The read end of a named pipe the child writes its output to.
    private final class PipeReader {
        let path: String
        let descriptor: Int32
        /// What was read after the last whole line.
        private var pending = ""

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("log-pipe-\(UUID().uuidString)").path
            try #require(mkfifo(path, 0o600) == 0)
            // Opened before the child, and without blocking, so that the child's open for
            // writing finds a reader at once.
            descriptor = open(path, O_RDONLY | O_NONBLOCK)
            try #require(descriptor >= 0)
            #if os(Linux)
            // F_SETPIPE_SZ: one page instead of 64 KiB, so the pipe fills after a few lines.
            _ = fcntl(descriptor, 1031, 4096)
            #endif
        }

        deinit {
            close(descriptor)
            unlink(path)
        }

        /// Reads what the child writes until a line matches `pattern`; the match's capture.
        func read(until pattern: Regex<(Substring, Substring)>, timeout: Duration) async throws -> String {
            var capture = ""
            try await read(timeout: timeout) { line in
                guard let match = line.firstMatch(of: pattern) else { return false }
                capture = String(match.output.1)
                return true
            }
            return capture
        }

        /// Reads what the child writes, handing each whole line to `done` once, until it
        /// says it is done. Lines are looked at one by one, as they come, so that reading
        /// megabytes of log stays linear.
        func read(timeout: Duration, until done: (Substring) -> Bool) async throws {
            var chunk = [UInt8](repeating: 0, count: 256 * 1024)
            let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
            while ContinuousClock.now < deadline {
                let count = chunk.withUnsafeMutableBytes { Self.systemRead(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else {
                    try await Task.sleep(for: .milliseconds(5))
                    continue
                }
                pending += String(decoding: chunk[0..<count], as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = pending[..<newline]
                    pending = String(pending[pending.index(after: newline)...])
                    if done(line) { return }
                }
            }
            throw RawClientError.timedOut
        }

        private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
            #if canImport(Glibc)
            Glibc.read(descriptor, buffer, count)
            #else
            Darwin.read(descriptor, buffer, count)
            #endif
        }
    }

    @Test(arguments: ["text", "json"])
    func aStuckStandardOutputNeitherStopsNorSlowsTheServer(format: String) async throws {
        let output = try PipeReader()
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MOCKBACKEND_") }
        let server = try ChildProcess(
            executable: ServerProcess.executable.path, arguments: ["--port", "0", "--log-format", format],
            environment: environment, directory: PackageRoot.path, output: output.path)
        defer { server.send(SIGKILL) }
        let port = try #require(
            Int(
                try await output.read(
                    until: /mockbackend listening on http:\/\/127\.0\.0\.1:(\d+)/, timeout: .seconds(20))))

        // From here on nobody reads the pipe. Each request logs a line of about 1 KiB: far
        // more than the pipe and the log queue (1 MiB) hold together.
        let flood = try RawHTTPClient(port: port)
        let padding = String(repeating: "p", count: 1000)
        for batch in 0..<80 {
            var requests = ""
            for number in 0..<20 {
                requests += "GET /health?n=\(batch * 20 + number)&pad=\(padding) HTTP/1.1\r\nHost: t\r\n\r\n"
            }
            try flood.send(requests)
            for _ in 0..<20 {
                #expect(try await flood.readResponse(timeout: .seconds(5)).status == 200)
            }
        }

        // Measured here, in this run: each probe is a new connection and one request.
        var slowest = Duration.zero
        for _ in 0..<5 {
            let start = ContinuousClock.now
            let probe = try RawHTTPClient(port: port)
            let answer = try await probe.get("/health")
            slowest = max(slowest, ContinuousClock.now - start)
            #expect(answer.status == 200)
        }
        #expect(slowest < TestTiming.scaled(.milliseconds(100)), "the slowest /health took \(slowest)")

        let state = try await RawHTTPClient(port: port).get("/__admin/state")
        let object = try JSONSerialization.jsonObject(with: Data(state.body)) as? [String: Any]
        let dropped = try #require(object?["droppedLogLines"] as? Int, "\(state.text.prefix(300))")
        #expect(dropped > 0)

        // Read again: the writer catches up and says how many lines it dropped (in one
        // report, or more if it caught up for a moment before), at least those the state
        // counted.
        var reported = 0
        try await output.read(timeout: .seconds(30)) { line in
            guard line.contains("log lines dropped"), let count = line.firstMatch(of: /dropped[=":]+(\d+)/) else {
                return false
            }
            reported += Int(count.output.1) ?? 0
            return reported >= dropped
        }
        #expect(reported >= dropped, "the log said \(reported), the state \(dropped)")
    }
}
