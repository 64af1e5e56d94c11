import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `GET /__admin/state`, `POST /__admin/reset`, and the request journal.
struct AdminStateRoutes {
    let player: PlayerService
    let streams: EventStreamRegistry
    let journal: RequestJournal
    let imports: ImportService
    let generations: GenerationService
    let workflows: WorkflowService
    let scenario: Scenario
    /// Cleared by reset too.
    var faults: FaultStore?
    /// Back to the `--mappings` files on reset, as WireMock's reset does.
    var stubs: StubStore?

    struct State: Encodable {
        var users: [UserAccount]
        var sessions: [SessionSnapshot]
        var streams: [EventStreamSnapshot]
        var requestCount: Int
    }

    func register(on admin: inout RouterGroup) {
        let (player, streams, journal, imports, generations, workflows, scenario) = (
            player, streams, journal, imports, generations, workflows, scenario
        )
        admin.get("/state") { _ in
            try .json(
                State(
                    users: player.accounts.users,
                    sessions: player.accounts.sessions.map(SessionSnapshot.init), streams: streams.all.map(\.snapshot),
                    requestCount: journal.count(matching: RequestMatcher())))
        }
        admin.post("/reset") { _ in
            player.reset(users: scenario.users)
            imports.removeAll()
            generations.removeAll()
            // The admin feed lives on: its subscribers (the dashboard) see the reset happen.
            streams.removeAll(keeping: ["admin/events"])
            // After the streams are cleared, so the seeded sessions start on fresh streams.
            workflows.reset(to: scenario.workflows)
            journal.clear()
            faults?.removeAll()
            stubs?.reset()
            return .json(bytes: Array(#"{"reset":true}"#.utf8))
        }
        admin.get("/requests") { request in
            var matcher = RequestMatcher(method: request.queryValue("method"), path: request.queryValue("path"))
            matcher = try matcher.validated()
            let since = try request.queryValue("since").map { text -> Date in
                guard let date = Timestamp.parse(text) else {
                    throw ProblemDetails.badRequest(
                        "since must be an ISO 8601 time such as 2026-11-22T10:00:00Z.", code: "INVALID_QUERY")
                }
                return date
            }
            var limit = 100
            if let text = request.queryValue("limit") {
                guard let value = Int(text), (1...5000).contains(value) else {
                    throw ProblemDetails.badRequest("limit must be from 1 to 5000.", code: "INVALID_QUERY")
                }
                limit = value
            }
            return try .json(journal.entries(matching: matcher, since: since, limit: limit))
        }
        admin.post("/requests/count") { request in
            let matcher = try RequestBody.decode(RequestMatcher.self, from: request).validated()
            return try .json(["count": journal.count(matching: matcher)])
        }
        admin.delete("/requests") { _ in try .json(["cleared": journal.clear()]) }
    }
}
