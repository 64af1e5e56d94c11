import Foundation
import MockBackendTesting
import TestSupport
import Testing

@testable import MockBackendCLI

/// Runs the built `mockbackend` binary as a child process. Its output goes to a file,
/// read back on demand, so no Dispatch source watches a pipe in the test process.
final class ServerProcess: Sendable {
    let process: ChildProcess
    private let outputFile: URL

    /// The executable next to the test bundle in the build folder.
    static var executable: URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("mockbackend")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: PackageRoot.path + "/.build/debug/mockbackend")
    }

    /// - Parameter directory: the working directory; nil for the package's root.
    init(_ arguments: [String], environment: [String: String] = [:], directory: String? = nil) throws {
        outputFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mockbackend-\(UUID().uuidString).log")
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MOCKBACKEND_") }
        env.merge(environment) { $1 }
        process = try ChildProcess(
            executable: Self.executable.path, arguments: arguments, environment: env,
            directory: directory ?? PackageRoot.path,
            output: outputFile.path)
    }

    deinit {
        process.terminate()
        try? FileManager.default.removeItem(at: outputFile)
    }

    /// Everything the process has written so far.
    var text: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    /// Waits for the startup line and returns the port it names.
    func waitForListening(timeout: Duration = .seconds(30)) async throws -> Int {
        // A start takes milliseconds; a whole suite starting at once on two cores can hold
        // the new process back for seconds.
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while ContinuousClock.now < deadline {
            let output = text
            if let range = output.range(
                of: #"mockbackend listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression)
            {
                return Int(output[range].split(separator: ":").last!)!
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw RawClientError.timedOut
    }

    /// Waits for exit and returns the status, or nil if it is still running at the deadline.
    func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return process.isRunning ? nil : process.terminationStatus
    }
}

@Suite("The mockbackend process", .serialized)
struct ProcessTests {
    @Test func printsTheStartupBlockEndingInTheListeningLine() async throws {
        let server = try ServerProcess(["--port", "0"])
        let port = try await server.waitForListening()
        #expect(port > 0)
        let banner = server.text
        #expect(banner.contains("dashboard  http://127.0.0.1:\(port)/"))
        #expect(banner.contains("admin      http://127.0.0.1:\(port)/__admin/health"))
        #expect(try await RawHTTPClient(port: port).get("/health").status == 200)
        server.process.interrupt()
        #expect(await server.waitForExit(timeout: .seconds(10)) == 0)
    }

    @Test func readsOptionsFromTheEnvironment() async throws {
        let server = try ServerProcess([], environment: ["MOCKBACKEND_PORT": "0", "MOCKBACKEND_LOG_FORMAT": "json"])
        let port = try await server.waitForListening()
        #expect(try await RawHTTPClient(port: port).get("/health").status == 200)
        #expect(
            await eventually {
                server.text.contains(#""message":"GET \/health 200""#)
                    || server.text.contains(#""message":"GET /health 200""#)
            })
        let logLine = try #require(server.text.split(separator: "\n").first { $0.hasPrefix("{") })
        let object = try JSONSerialization.jsonObject(with: Data(logLine.utf8)) as? [String: String]
        #expect(object?["level"] == "info")
        server.process.terminate()
        #expect(await server.waitForExit(timeout: .seconds(10)) == 0)
    }

    @Test(
        "bad flags exit 64 with a message, not a trace",
        arguments: [
            ["--port", "notanumber"], ["--port", "70000"], ["--log-format", "xml"], ["--max-connections", "0"],
            ["--no-such-flag"], ["--log-level", "loud"],
        ])
    func badFlagsExit64(_ arguments: [String]) async throws {
        let server = try ServerProcess(arguments)
        #expect(await server.waitForExit(timeout: .seconds(5)) == 64)
        #expect(server.text.contains("Error:"))
        #expect(!server.text.contains("Fatal error"))
        #expect(!server.text.contains("Stack dump"))
    }

    @Test func anInvalidScenarioFileStopsTheStartNamingTheField() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).json")
        try #"{"users": [{"username": "a", "password": "p", "currency": "euro"}]}"#.write(
            to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let server = try ServerProcess(["--port", "0", "--scenario", file.path])
        #expect(await server.waitForExit(timeout: .seconds(5)) == 64)
        #expect(server.text.contains("users[0].currency"))
    }

    @Test func aScenarioFileSeedsTheUsers() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).json")
        try #"{"users": [{"username": "zoe", "password": "pw", "userId": 42}]}"#.write(
            to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let server = try ServerProcess(["--port", "0"], environment: ["MOCKBACKEND_SCENARIO": file.path])
        let port = try await server.waitForListening()
        #expect(server.text.contains("user       zoe / pw  userId 42"))
        let client = try RawHTTPClient(port: port)
        let body = #"{"username":"zoe","password":"pw"}"#
        try client.send(
            "POST /v1/player/legislation/login HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(try await client.readResponse().status == 200)
        server.process.terminate()
        _ = await server.waitForExit(timeout: .seconds(2))
    }

    @Test func badEnvironmentValueExits64() async throws {
        let server = try ServerProcess([], environment: ["MOCKBACKEND_PORT": "eighty"])
        #expect(await server.waitForExit(timeout: .seconds(5)) == 64)
        #expect(server.text.contains("--port"))
    }

    @Test func portInUseIsAClearError() async throws {
        let first = try ServerProcess(["--port", "0"])
        let port = try await first.waitForListening()
        let second = try ServerProcess(["--port", "\(port)"])
        #expect(await second.waitForExit(timeout: .seconds(5)) == 64)
        #expect(second.text.contains("cannot listen on 127.0.0.1:\(port)"))
        first.process.terminate()
        _ = await first.waitForExit(timeout: .seconds(2))
    }

    @Test func sigtermFinishesWithinTwoSecondsWithClientsConnected() async throws {
        let server = try ServerProcess(["--port", "0"])
        let port = try await server.waitForListening()
        let idle = try RawHTTPClient(port: port)
        #expect(try await idle.get("/health").status == 200)
        let partial = try RawHTTPClient(port: port)
        try partial.send("GET /hea")
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        server.process.terminate()
        #expect(await server.waitForExit(timeout: .seconds(2)) == 0)
        #expect(ContinuousClock.now - start < TestTiming.scaled(.seconds(2)))
        #expect(await idle.waitForClose(timeout: .seconds(1)) != .stillOpen)
    }

    /// Every option that takes a value can also come from `MOCKBACKEND_<NAME>`.
    @Test func everyOptionHasAnEnvironmentVariable() {
        let help = MockBackendCommand.helpMessage(columns: 200)
        let options = help.matches(of: /--([a-z][a-z0-9-]+) <[a-z0-9-]+>/).map { String($0.output.1) }
        #expect(!options.isEmpty)
        #expect(Set(options) == Set(EnvironmentOptions.valueOptions))
    }

    /// `--help` names the variable of every option and flag beside it.
    @Test func theHelpNamesEveryVariable() {
        let help = MockBackendCommand.helpMessage(columns: 200)
        for option in EnvironmentOptions.valueOptions + EnvironmentOptions.flags {
            #expect(help.contains("(env: \(EnvironmentOptions.variableName(for: option)))"), "--\(option)")
        }
    }

    /// argument-parser's completion scripts, as the README documents them.
    @Test func generatesACompletionScript() async throws {
        let server = try ServerProcess(["--generate-completion-script", "bash"])
        #expect(await server.waitForExit(timeout: .seconds(5)) == 0)
        #expect(server.text.contains("_mockbackend"))
    }

    @Test func defaultsAreTheBackendsOwn() throws {
        let configuration = try MockBackendCommand.parse([]).appConfiguration
        #expect(configuration.player.userInfoIdleTimeout == .seconds(60))
        #expect(configuration.http.webSocket.pingInterval == .seconds(20))
        let set = try MockBackendCommand.parse(["--userinfo-idle-timeout", "2.5", "--ws-ping-interval", "0"])
            .appConfiguration
        #expect(set.player.userInfoIdleTimeout == .milliseconds(2500))
        #expect(set.http.webSocket.pingInterval == .zero)
    }

    /// `--readiness` picks what watches the sockets; the platform's default without it, and
    /// a server started with either serves requests.
    @Test func readinessPicksTheMechanism() async throws {
        #expect(try MockBackendCommand.parse([]).appConfiguration.http.readiness == .platformDefault)
        #expect(
            try MockBackendCommand.parse(["--readiness", "dispatch"]).appConfiguration.http.readiness
                == .dispatchSources)
        #expect(try MockBackendCommand.parse(["--readiness", "epoll"]).appConfiguration.http.readiness == .epoll)
        #expect(throws: (any Error).self) { try MockBackendCommand.parse(["--readiness", "kqueue"]) }
        for mode in ["dispatch", "epoll"] {
            let server = try ServerProcess(["--port", "0", "--readiness", mode])
            let port = try await server.waitForListening()
            let client = try RawHTTPClient(port: port)
            for _ in 0..<3 { #expect(try await client.get("/health").status == 200, "\(mode)") }
            server.process.terminate()
            #expect(await server.waitForExit(timeout: .seconds(2)) == 0)
        }
    }

    @Test(arguments: ["--userinfo-idle-timeout", "--session-ttl", "--ws-ping-interval", "--heartbeat"])
    func durationsOutOfRangeAreRefused(_ option: String) {
        for value in ["-1", "nan", "1e300", "inf"] {
            #expect(throws: (any Error).self, "\(option) \(value)") { try MockBackendCommand.parse([option, value]) }
        }
    }

    @Test func environmentValuesGoFirstSoFlagsWin() {
        let merged = EnvironmentOptions.merge(
            ["--port", "9"], environment: ["MOCKBACKEND_PORT": "8", "MOCKBACKEND_MAX_CONNECTIONS": "3"])
        #expect(merged == ["--port", "8", "--max-connections", "3", "--port", "9"])
        let command = try? MockBackendCommand.parse(merged)
        #expect(command?.port == 9)
        #expect(command?.maxConnections == 3)
    }
}
