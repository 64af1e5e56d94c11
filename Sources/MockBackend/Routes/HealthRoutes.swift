import MockBackendHTTP

/// `GET /health` for load balancers and scripts, `GET /__admin/health` for the admin side.
struct HealthRoutes {
    private let startedAt = ContinuousClock.now
    /// Encoded once: the liveness body never changes.
    private static let healthBody = Array(#"{"status":"ok"}"#.utf8)

    private struct AdminHealth: Encodable {
        var status = "ok"
        var version = MockBackendVersion.current
        var uptimeSeconds: Double
    }

    func register(on router: inout Router) {
        router.get("/health") { _ in .json(bytes: Self.healthBody) }
        let startedAt = startedAt
        router.get("/__admin/health") { _ in
            let uptime = ContinuousClock.now - startedAt
            return try .json(AdminHealth(uptimeSeconds: uptime.secondsToTheMillisecond))
        }
    }
}
