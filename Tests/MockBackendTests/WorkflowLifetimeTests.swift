import Foundation
import MockBackend
import MockBackendAPI
import TestSupport
import Testing

/// How long a workflow session of the scenario lasts: the built-in `s1` until completed
/// through the admin API, so a soak of any length finds it live without set-up; a bound
/// from `--workflow-iterations` or the scenario file ends it after that many iterations.
@Suite("Workflow session lifetime")
struct WorkflowLifetimeTests {
    private static let key = "lifetime-key"

    private static func app(_ scenario: (Scenario) -> Scenario = { $0 }) throws -> InMemoryApp {
        try InMemoryApp.manual { configuration in
            configuration.workflowAPIKey = key
            configuration.scenario = scenario(configuration.scenario)
        }
    }

    private func status(_ app: InMemoryApp, _ id: String = "s1") throws -> WorkflowStatus {
        try app.get(WorkflowStatus.self, "/" + WorkflowPaths.status(id: id), headers: ["X-API-Key": Self.key])
    }

    /// Ten minutes of simulated time, as a soak runs: `s1` is still live, well past the
    /// 120 s its old twelve iterations took.
    @Test func theBuiltInSessionIsLiveAfterTenMinutes() throws {
        let app = try Self.app()
        let stream = try #require(
            app.answer("GET", "/" + WorkflowPaths.events(id: "s1"), headers: ["X-API-Key": Self.key]).stream)
        for _ in 0..<60 { app.advance(by: .seconds(10)) }
        let live = try status(app)
        #expect(live.mode == .live)
        #expect(live.iteration == 61)
        #expect(stream.endReason == nil)
        #expect(!stream.events.contains { $0.data.contains(WorkflowTopic.loopCompleted) })

        _ = app.answer("POST", "/__admin/workflows/s1/complete")
        app.run()
        #expect(try status(app).mode == .complete)
        let completion = try #require(stream.events.last)
        #expect(completion.data.contains(#""reason":"admin""#))
    }

    /// The admin list shows no bound for it.
    @Test func theAdminListShowsNoBound() throws {
        let app = try Self.app()
        let sessions = try app.get([WorkflowAdminSnapshot].self, "/__admin/workflows")
        #expect(sessions.map(\.id) == ["s1"])
        #expect(sessions.first?.iterations == nil)
    }

    /// A bound of 3 (`--workflow-iterations 3`, or the scenario's `iterations`): three
    /// iterations of two steps at 5 s, then `loop.completed` with `max_iterations`.
    @Test func aBoundEndsItAfterThatManyIterations() throws {
        let app = try Self.app { scenario in
            var bounded = scenario
            bounded.workflows[0].iterations = 3
            return bounded
        }
        app.advance(by: .seconds(25))
        #expect(try status(app).mode == .live)
        app.advance(by: .seconds(5))
        let done = try status(app)
        #expect(done.mode == .complete)
        #expect(done.iteration == 3)
    }

    /// A scenario file's session may leave `iterations` out: it runs until completed.
    @Test func aScenarioFileSessionWithoutIterationsRunsUntilCompleted() throws {
        let scenario = try ScenarioFile.parse(
            Data(
                #"{"users": [], "workflows": [{"id": "soak", "hats": ["planner"], "paceSeconds": 1}]}"#.utf8))
        #expect(scenario.workflows.first?.iterations == nil)
        let app = try Self.app { _ in scenario }
        app.advance(by: .seconds(900))
        #expect(try status(app, "soak").mode == .live)
    }
}
