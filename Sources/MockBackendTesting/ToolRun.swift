import Foundation

/// A command-line tool (curl, openssl, python3) run by a test, its output in a file so no
/// pipe is watched in the test process. Stopped when released.
public final class ToolRun: @unchecked Sendable {
    public let process = Process()
    private let outputFile: URL

    public init(_ executable: String, _ arguments: [String], stdin: String? = nil) throws {
        outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputFile)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        if let stdin {
            let input = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).in")
            try stdin.write(to: input, atomically: true, encoding: .utf8)
            process.standardInput = try FileHandle(forReadingFrom: input)
            // The open handle keeps the contents; the name can go at once.
            try? FileManager.default.removeItem(at: input)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        try output.close()
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: outputFile)
    }

    /// Everything written so far, stdout and stderr together.
    public var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    /// Waits for the end and returns the exit status; nil if it ran past `timeout` (then it is stopped).
    public func exitStatus(timeout: Duration = .seconds(20)) async -> Int32? {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        guard !process.isRunning else {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }

    /// Polls the output until it contains `text`.
    public func waitForOutput(containing text: String, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while ContinuousClock.now < deadline {
            if output.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return output.contains(text)
    }
}
