import MockBackendHTTP

/// `GET /__admin/state` and `POST /__admin/reset` (back to the scenario).
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
    /// The proxy's session overlay, forgotten on reset.
    var proxySessions: ProxySessions?
    /// Log lines dropped so far (`MockBackendConfiguration.droppedLogLines`).
    var droppedLogLines: (@Sendable () -> Int)?

    func register(on admin: inout RouterGroup) {
        let (player, streams, journal, imports, generations, workflows, scenario, droppedLogLines, proxySessions) = (
            player, streams, journal, imports, generations, workflows, scenario, droppedLogLines, proxySessions
        )
        admin.get("/state") { _ in
            try .json(
                AdminState(
                    users: player.accounts.users,
                    sessions: player.accounts.sessions.map(AdminSession.init), streams: streams.all.map(\.snapshot),
                    requestCount: journal.count(matching: RequestMatcher()),
                    droppedLogLines: droppedLogLines?() ?? 0))
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
            journal.http2Endings.clear()
            faults?.removeAll()
            stubs?.reset()
            proxySessions?.reset()
            return try .json(AdminReset())
        }
    }
}
