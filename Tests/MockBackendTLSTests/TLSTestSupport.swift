import Foundation
import Logging
import MockBackend
import MockBackendTLS
import MockBackendTesting

/// A temporary directory removed when the test ends.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The server in-process with plain HTTP and HTTPS listeners, and its certificate in a
/// file for clients to trust.
struct TLSServer {
    let server: RunningServer
    let certificateFile: String
    let identity: TLSIdentity

    var tlsPort: Int { server.tlsPort ?? 0 }
    var httpsURL: String { "https://localhost:\(tlsPort)" }
}

let silentLogger = Logger(label: "mockbackend.test", factory: { _ in SwiftLogNoOpLogHandler() })

func withTLSServer<Result: Sendable>(_ body: (TLSServer) async throws -> Result) async throws -> Result {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let identity = try TLSIdentity.selfSigned()
    let certificateFile = scratch.path("cert.pem")
    try identity.certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
    var configuration = MockBackendConfiguration.forTesting()
    configuration.tls = TLSListenerSettings(
        port: 0, transport: try TLSContext(identity: identity, logger: silentLogger),
        certificatePEM: identity.certificatePEM, sha256Fingerprint: identity.sha256Fingerprint)
    return try await withRunningServer(configuration) { server in
        try await body(TLSServer(server: server, certificateFile: certificateFile, identity: identity))
    }
}

/// A command-line tool (curl, openssl) run to its end, its output in a file so no pipe
/// is watched in the test process.
final class ToolRun: @unchecked Sendable {
    let process = Process()
    private let outputFile: URL

    init(_ executable: String, _ arguments: [String], stdin: String? = nil) throws {
        outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).out")
        FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputFile)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        if let stdin {
            let input = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).in")
            try stdin.write(to: input, atomically: true, encoding: .utf8)
            process.standardInput = try FileHandle(forReadingFrom: input)
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
    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    /// Waits for the end and returns the exit status; nil if it ran past `timeout` (then it is stopped).
    func exitStatus(timeout: Duration = .seconds(20)) async -> Int32? {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        guard !process.isRunning else {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }

    /// Polls the output until it contains `text`.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while ContinuousClock.now < deadline {
            if output.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return output.contains(text)
    }

    /// `curl` with the server's certificate as the only trusted one.
    static func curl(_ server: TLSServer, _ arguments: [String]) throws -> ToolRun {
        try ToolRun("/usr/bin/curl", ["--silent", "--show-error", "--cacert", server.certificateFile] + arguments)
    }

    static func openssl(_ arguments: [String], stdin: String? = nil) throws -> ToolRun {
        try ToolRun("/usr/bin/openssl", arguments, stdin: stdin)
    }
}
