import MockBackendHTTP

/// `GET /__admin/health`: readiness for the admin side, with version and uptime. Open even
/// with `--admin-token` (`AdminAuthenticationMiddleware`).
struct AdminHealthRoutes {
    private let startedAt = ContinuousClock.now

    func register(on admin: inout RouterGroup) {
        let startedAt = startedAt
        admin.get("/health") { _ in
            let uptime = ContinuousClock.now - startedAt
            return try .json(
                AdminHealth(version: MockBackendVersion.current, uptimeSeconds: uptime.secondsToTheMillisecond))
        }
    }
}
