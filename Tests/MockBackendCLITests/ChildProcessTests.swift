import Foundation
import MockBackendTesting
import TestSupport
import Testing

@Suite("Child processes for tests")
struct ChildProcessTests {
    @Test func theChildGetsOnlyItsStandardDescriptorsItsDirectoryAndItsEnvironment() async throws {
        try await withRunningServer { server in
            let open = try server.connect()  // a socket the child must not hold
            #expect(try await open.get("/health").status == 200)
            let run = try ToolRun(
                "/bin/sh", ["-c", "ls /proc/self/fd | sort -n | tr '\\n' ' '; echo; pwd; echo \"$MB_CHILD\""])
            #expect(await run.exitStatus() == 0)
            let lines = run.output.split(separator: "\n").map(String.init)
            // 3 is the directory `ls` reads.
            #expect(lines.first?.trimmingCharacters(in: .whitespaces) == "0 1 2 3")

            let output = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: output) }
            let child = try ChildProcess(
                executable: "/bin/sh", arguments: ["-c", "pwd; echo \"$MB_CHILD\"; exit 3"],
                environment: ["MB_CHILD": "given"], directory: "/tmp", output: output.path)
            while child.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            #expect(child.terminationStatus == 3)
            #expect(try String(contentsOf: output, encoding: .utf8) == "/tmp\ngiven\n")
        }
    }

    @Test func aSignalEndsTheChildAndIsItsStatus() async throws {
        let run = try ToolRun("/bin/sleep", ["30"])
        #expect(run.process.isRunning)
        run.process.terminate()
        #expect(await run.exitStatus(timeout: .seconds(5)) == SIGTERM)
    }

    @Test func aMissingExecutableIsAnError() {
        #expect(throws: ChildProcess.SpawnError.self) { try ToolRun("/nonexistent/tool", []) }
    }
}
