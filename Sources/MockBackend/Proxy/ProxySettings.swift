import MockBackendHTTP

/// Proxy mode (`--proxy URL`): what no stub and no enabled built-in backend answers goes to
/// a team's own backend, streamed back, with every tool of the mock on that traffic
/// (README, "Put it in front of your own backend").
public struct ProxySettings: Sendable {
    /// Where requests go (`--proxy`); nil: only mappings with `proxyBaseUrl` proxy.
    public var upstream: UpstreamOrigin?
    /// Hosts upstream requests may go to besides `upstream`'s and those of the mappings
    /// loaded at start (`--proxy-allow`).
    public var allowedHosts: [String] = []
    /// How HTTPS upstreams are spoken to: a `TLSClientContext` (system trust store,
    /// `--proxy-ca`, `--proxy-insecure`). Nil: plain HTTP only.
    public var tlsTransport: (any UpstreamTransport)?
    /// Connect and response-head timeout (`--proxy-timeout`); a stream, once its head has
    /// arrived, has none, and a client's slow upload does not count. Default 30 s.
    public var timeout: Duration = .seconds(30)
    /// Sends the client's own `Host` upstream instead of the upstream's
    /// (`--proxy-preserve-host`).
    public var preserveHost = false
    /// Where a request carries its session token (`--proxy-token`): for the session overlay
    /// and for redaction.
    public var token = ProxyTokenSource.bearer
    /// The built-in backends that stay on in proxy mode (`--backends`); the others' paths go
    /// upstream. Nil: none with `upstream` set, all without.
    public var backends: Set<Backend>?
    /// Whether TLS verification is off (`--proxy-insecure`), for the startup block.
    public var insecure = false
    /// Records from the start and writes the mapping files here when the server stops
    /// (`--record DIR`).
    public var recordDirectory: String?

    public init() {}

    /// A built-in backend of the mock.
    public enum Backend: String, Sendable, CaseIterable {
        case player
        case imports
        case generations
        case workflows
    }

    /// The backends served: all without a proxy, the named ones with one.
    public var enabledBackends: Set<Backend> {
        backends ?? (upstream == nil ? Set(Backend.allCases) : [])
    }
}
