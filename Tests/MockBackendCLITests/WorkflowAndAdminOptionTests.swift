import ArgumentParser
import MockBackend
import Testing

@testable import MockBackendCLI

/// `--workflow-iterations` bounds the scenario's workflow sessions (the built-in `s1` runs
/// until completed without it), and `--help` says which admin routes `--admin-token` leaves
/// open.
@Suite("Workflow and admin options")
struct WorkflowAndAdminOptionTests {
    private func iterations(_ arguments: [String]) throws -> [Int?] {
        try MockBackendCommand.parse(arguments).appConfiguration.scenario.workflows.map(\.iterations)
    }

    @Test func theBuiltInSessionRunsUntilCompletedByDefault() throws {
        #expect(try iterations([]) == [nil])
    }

    @Test func theOptionBoundsTheScenariosSessions() throws {
        #expect(try iterations(["--workflow-iterations", "3"]) == [3])
        #expect(try iterations(["--workflow-iterations", "0"]) == [nil])
        let merged = EnvironmentOptions.merge([], environment: ["MOCKBACKEND_WORKFLOW_ITERATIONS": "7"])
        #expect(try iterations(merged) == [7])
    }

    @Test(arguments: ["-1", "1000001"])
    func anIterationCountOutOfRangeIsRefused(_ value: String) {
        #expect(throws: (any Error).self) { try MockBackendCommand.parse(["--workflow-iterations", value]) }
    }

    @Test func theHelpNamesEveryAdminRouteTheTokenLeavesOpen() throws {
        let help = MockBackendCommand.helpMessage(columns: 400)
        let start = try #require(help.range(of: "--admin-token <admin-token>"))
        let entry = help[start.upperBound...].prefix { $0 != "-" }
        #expect(entry.contains("/__admin/health and /__admin/tls/cert.pem"), "\(entry)")
    }
}
