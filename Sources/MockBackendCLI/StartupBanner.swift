import MockBackend

/// The block printed at start. Its last line is always
/// `mockbackend listening on http://HOST:PORT`; scripts wait for it.
struct StartupBanner {
    let configuration: MockBackendConfiguration
    let port: Int
    let workflowAPIKey: String

    var baseURL: String {
        let host = configuration.http.host
        return host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }

    var text: String {
        var lines = [
            "mockbackend \(MockBackendVersion.current)",
            "  dashboard  \(baseURL)/",
            "  health     \(baseURL)/health",
            "  admin      \(baseURL)/__admin/health",
            "  openapi    \(baseURL)/openapi.yaml",
            "  public dir \(configuration.publicDirectory)",
            "  api key    \(workflowAPIKey)  (workflow API: Authorization: Bearer or X-API-Key)",
        ]
        for user in configuration.scenario.users {
            lines.append(
                "  user       \(user.username) / \(user.password)  userId \(user.userId)  \(user.currency) \(user.realBalance)"
                    + (user.bonusBalance > 0 ? " + bonus \(user.bonusBalance)" : ""))
        }
        let hasAdminToken = !(configuration.adminToken ?? "").isEmpty
        if hasAdminToken {
            lines.append("  admin auth Authorization: Bearer <--admin-token> (the dashboard asks for it)")
        }
        if !["127.0.0.1", "localhost", "::1"].contains(configuration.http.host), !hasAdminToken {
            lines.append(
                "  warning    listening beyond loopback without --admin-token: anyone on the network can reach the admin API"
            )
        }
        lines.append("mockbackend listening on \(baseURL)")
        return lines.joined(separator: "\n")
    }
}
