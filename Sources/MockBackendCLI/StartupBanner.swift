import MockBackend

/// The block printed at start. Its last line is always
/// `mockbackend listening on http://HOST:PORT`; scripts wait for it.
struct StartupBanner {
    let configuration: MockBackendConfiguration
    let port: Int
    let tlsPort: Int?
    /// Where `--tls-cert-out` wrote the certificate.
    let tlsCertificateFile: String?
    let workflowAPIKey: String

    var baseURL: String { url(scheme: "http", port: port) }

    private func url(scheme: String, port: Int) -> String {
        let host = configuration.http.host
        return host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
    }

    var text: String {
        var lines = [
            "mockbackend \(MockBackendVersion.current)",
            "  dashboard  \(baseURL)/",
            "  health     \(baseURL)/health",
            "  admin      \(baseURL)/__admin/health",
            "  openapi    \(baseURL)/openapi.yaml",
            "  public dir \(configuration.publicDirectory)",
        ]
        if let tlsPort, let tls = configuration.tls {
            lines.append("  https      \(url(scheme: "https", port: tlsPort))/")
            lines.append("  tls sha256 \(tls.sha256Fingerprint)")
            lines.append(
                "  tls cert   \(baseURL)/__admin/tls/cert.pem" + (tlsCertificateFile.map { " (also in \($0))" } ?? ""))
        }
        lines += [
            "  api key    \(workflowAPIKey)  (workflow API: Authorization: Bearer or X-API-Key)"
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
