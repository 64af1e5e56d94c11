import MockBackendHTTP

/// `GET /health`, for load balancers and scripts.
struct HealthRoutes {
    /// Encoded once: the liveness body never changes.
    private static let healthBody = Array(#"{"status":"ok"}"#.utf8)

    func register(on router: inout Router) {
        router.get("/health") { _ in .json(bytes: Self.healthBody) }
    }
}
