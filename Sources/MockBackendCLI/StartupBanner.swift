import MockBackend

/// The block printed at start. Its last line is always
/// `mockbackend listening on http://HOST:PORT`; scripts wait for it. It lists only what is
/// served: no dashboard line when `--public-dir` names a folder without one, no OpenAPI
/// line when `--openapi-file` names a file that is not there (a warning says so instead).
struct StartupBanner {
    let configuration: MockBackendConfiguration
    let served: ServedFiles
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
        var lines = ["mockbackend \(MockBackendVersion.current)"]
        let proxy = configuration.proxy
        if let upstream = proxy.upstream {
            // Every path outside /__admin is the upstream's now.
            if served.servesDashboard { lines.append("  dashboard  \(baseURL)/__admin/dashboard/") }
            lines.append("  admin      \(baseURL)/__admin/health")
            if served.servesOpenAPIDocument { lines.append("  openapi    \(baseURL)/__admin/openapi.yaml") }
            lines.append("  proxy      \(upstream)  (session token: \(proxy.token))")
            let backends = proxy.enabledBackends.map(\.rawValue).sorted()
            let served = backends.isEmpty ? "none (--backends names some)" : backends.joined(separator: ", ")
            lines.append("  backends   " + served)
            if proxy.insecure {
                lines.append("  warning    --proxy-insecure: upstream TLS certificates are not verified")
            }
        } else {
            if served.servesDashboard { lines.append("  dashboard  \(baseURL)/") }
            lines += ["  health     \(baseURL)/health", "  admin      \(baseURL)/__admin/health"]
            if served.servesOpenAPIDocument { lines.append("  openapi    \(baseURL)/openapi.yaml") }
        }
        lines += fileLines
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

    /// Where live files come from (`--public-dir`, `--openapi-file`), and a warning for
    /// each that is not there; nothing for the built-in copies.
    private var fileLines: [String] {
        var lines: [String] = []
        switch served.publicFiles {
        case .builtIn: break
        case .disk(let path):
            lines.append(
                "  public dir \(path) (live)" + (served.servesDashboard ? "" : ", no index.html: no dashboard"))
        case .missing(let path):
            lines.append("  warning    --public-dir \(path) not found: no dashboard and no static files")
        }
        switch served.openAPIDocument {
        case .builtIn: break
        case .disk(let path): lines.append("  openapi    from \(path) (live)")
        case .missing(let path):
            lines.append("  warning    --openapi-file \(path) not found: /openapi.yaml answers 404")
        }
        return lines
    }
}
