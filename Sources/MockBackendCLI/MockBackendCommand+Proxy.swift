import ArgumentParser
import MockBackend
import MockBackendHTTP
import MockBackendTLS

extension MockBackendCommand {
    /// The proxy options fit together and parse, so a bad one stops the start with a usage
    /// error (exit 64) before anything listens.
    func validateProxy() throws {
        if let proxy, UpstreamOrigin(url: proxy) == nil {
            throw ValidationError("--proxy must be an http:// or https:// URL with no query, not \(proxy).")
        }
        let needsProxy: [(String, Bool)] = [
            ("--proxy-ca", proxyCa != nil), ("--proxy-insecure", proxyInsecure),
            ("--proxy-preserve-host", proxyPreserveHost),
        ]
        if proxy == nil, proxyAllow == nil, let (name, _) = needsProxy.first(where: \.1) {
            throw ValidationError("\(name) needs --proxy or --proxy-allow.")
        }
        if record != nil, proxy == nil {
            throw ValidationError("--record needs --proxy: it records what goes upstream.")
        }
        if proxyCa != nil, proxyInsecure {
            throw ValidationError("Give either --proxy-ca or --proxy-insecure.")
        }
        guard proxyTimeout >= 0.1, proxyTimeout <= 3600 else {
            throw ValidationError("--proxy-timeout must be from 0.1 to 3600 seconds, not \(proxyTimeout).")
        }
        guard ProxyTokenSource(argument: proxyToken) != nil else {
            throw ValidationError(
                "--proxy-token must be bearer, header:NAME, cookie:NAME or query:NAME, not \(proxyToken).")
        }
        _ = try backendSet()
        if let proxyCa {
            do {
                _ = try TLSClientContext(extraCA: proxyCa)
            } catch {
                throw ValidationError("--proxy-ca \(proxyCa): \(error)")
            }
        }
    }

    /// What the proxy options ask for.
    func proxySettings() throws -> ProxySettings {
        var settings = ProxySettings()
        settings.upstream = proxy.flatMap(UpstreamOrigin.init(url:))
        settings.allowedHosts = Self.list(proxyAllow)
        settings.timeout = .milliseconds(Int((proxyTimeout * 1000).rounded()))
        settings.preserveHost = proxyPreserveHost
        settings.token = ProxyTokenSource(argument: proxyToken) ?? .bearer
        settings.backends = try backendSet()
        settings.insecure = proxyInsecure
        settings.recordDirectory = record
        if settings.upstream != nil || !settings.allowedHosts.isEmpty {
            settings.tlsTransport = try TLSClientContext(extraCA: proxyCa, insecure: proxyInsecure)
        }
        return settings
    }

    /// `--backends`, parsed; nil when not given.
    private func backendSet() throws -> Set<ProxySettings.Backend>? {
        guard let backends else { return nil }
        var set: Set<ProxySettings.Backend> = []
        for name in Self.list(backends) {
            guard let backend = ProxySettings.Backend(rawValue: name.lowercased()) else {
                throw ValidationError(
                    "--backends takes player, imports, generations and workflows separated by commas, not \(name).")
            }
            set.insert(backend)
        }
        return set
    }

    static func list(_ text: String?) -> [String] {
        text?.split(separator: ",").map { String($0.trimmingSpaces()) }.filter { !$0.isEmpty } ?? []
    }
}
