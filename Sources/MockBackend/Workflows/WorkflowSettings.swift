#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How workflow sessions behave.
package struct WorkflowSettings: Sendable {
    /// The key every `/api/sessions` route asks for, as `Authorization: Bearer <key>` or
    /// `X-API-Key: <key>`.
    package var apiKey: String
    /// The wall-clock time of simulated time zero. An event's `ts` and a session's
    /// `started_at` are this epoch plus the simulation clock's time, so with a manual clock
    /// they move only when the clock does.
    package var epoch: Date
    /// The tools `tool.called` names, one picked per iteration from the identifier source,
    /// so `--seed` makes the picks repeatable.
    package var tools = ["read_file", "edit_file", "run_tests", "search_code", "shell"]
    /// What `POST /__admin/workflows` uses for the fields it leaves out (the id is generated).
    package var defaults = Scenario.WorkflowSeed(
        id: "", iterations: 12, hats: ["planner", "builder", "reviewer"], paceSeconds: 5)
    /// Reconnection time advertised on every session stream, in milliseconds.
    package var retry = 5000
    /// Completed sessions kept (with their streams); the oldest completed goes first.
    /// Default 1,000.
    package var finishedSessionLimit = 1000

    package init(apiKey: String, epoch: Date) {
        self.apiKey = apiKey
        self.epoch = epoch
    }

    /// `epoch` in milliseconds since 1970.
    var epochMilliseconds: Int64 { Int64((epoch.timeIntervalSince1970 * 1000).rounded()) }
}
