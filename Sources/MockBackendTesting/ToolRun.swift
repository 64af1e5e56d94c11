import Foundation

/// A command-line tool (curl, openssl, python3) run by a test, its output in a file so no
/// pipe is watched in the test process. Stopped when released.
package final class ToolRun: Sendable {
    package let process: ChildProcess
    private let outputFile: URL

    /// - Parameter executable: a path (`/usr/bin/env` finds a tool on `PATH`).
    package init(_ executable: String, _ arguments: [String], stdin: String? = nil) throws {
        outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).out")
        var inputFile: URL?
        if let stdin {
            let input = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).in")
            try stdin.write(to: input, atomically: true, encoding: .utf8)
            inputFile = input
        }
        // posix_spawn returns once the child has opened its input: the name can go then.
        defer { if let inputFile { try? FileManager.default.removeItem(at: inputFile) } }
        process = try ChildProcess(
            executable: executable, arguments: arguments, input: inputFile?.path, output: outputFile.path)
    }

    deinit {
        process.terminate()
        try? FileManager.default.removeItem(at: outputFile)
    }

    /// Everything written so far, stdout and stderr together.
    package var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    /// Waits for the end and returns the exit status; nil if it ran past `timeout` (then it is stopped).
    package func exitStatus(timeout: Duration = .seconds(20)) async -> Int32? {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        guard !process.isRunning else {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }

    /// Polls the output until it contains `text`.
    package func waitForOutput(containing text: String, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while ContinuousClock.now < deadline {
            if output.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return output.contains(text)
    }
}
