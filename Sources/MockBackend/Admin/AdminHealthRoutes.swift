import MockBackendHTTP

/// `GET /__admin/health`: readiness for the admin side, with version and uptime. Open even
/// with `--admin-token` (`AdminAuthenticationMiddleware`).
struct AdminHealthRoutes {
    private let startedAt = ContinuousClock.now

    private struct AdminHealth: Encodable {
        var status = "ok"
        var version = MockBackendVersion.current
        var uptimeSeconds: Double
    }

    func register(on admin: inout RouterGroup) {
        let startedAt = startedAt
        admin.get("/health") { _ in
            let uptime = ContinuousClock.now - startedAt
            return try .json(AdminHealth(uptimeSeconds: uptime.secondsToTheMillisecond))
        }
    }
}
