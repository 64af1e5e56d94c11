import MockBackendHTTP

/// Everything the mock needs to start: the HTTP listener and where its files are.
public struct MockBackendConfiguration: Sendable {
    /// Listener address, port, limits and timeouts.
    public var http: HTTPServerConfiguration
    /// A folder to serve the dashboard and other static files from, read on each request, so
    /// an edited file is served without a restart (`--public-dir`). Nil, the default: the
    /// copy of `Public/` built into the module, which needs no files on disk.
    public var publicDirectory: String?
    /// A file to serve at `/openapi.yaml`, read on each request (`--openapi-file`). Nil, the
    /// default: the copy of `openapi/openapi.yaml` built into the module.
    public var openAPIDocument: String?
    /// Time between heartbeat comments on streams that have them. Default 15 s; zero turns
    /// heartbeats off.
    public var heartbeatInterval: Duration = .seconds(15)
    /// How long an admin flood (`count`) waits for a subscriber whose socket takes nothing
    /// before it goes on without it (`EventFlood`). Default 2 s.
    public var floodPatience: Duration = .seconds(2)
    /// The player API's behaviour (session TTL, idle close, balance-update variants).
    public var player = PlayerSettings()
    /// How simulated time passes: real time scaled by a speed (`--speed`), or a manual clock
    /// moved only by `POST /__admin/clock/advance` (`--clock manual`).
    public var clock = SimulationClock.Mode.real(speed: 1)
    /// Makes ids of simulated things (jobs) and simulated randomness repeatable (`--seed`).
    public var seed: UInt64?
    /// How CSV imports behave (rate, file size limit).
    public var imports = ImportSettings()
    /// How generations behave (duration).
    public var generations = GenerationSettings()
    /// Finished import jobs, generations and workflow sessions kept, of each kind, with their
    /// streams; past it the one that finished first is forgotten (its routes answer 404).
    /// Default 1,000.
    public var finishedJobLimit = 1000
    /// The key of the workflow API (`Authorization: Bearer <key>` or `X-API-Key`, `--api-key`).
    /// Nil or empty: a key generated at start from `SecureToken`, printed in the startup block.
    public var workflowAPIKey: String?
    /// The token every `/__admin` route but `/__admin/health` and `/__admin/tls/cert.pem` asks for (`Authorization: Bearer`,
    /// or `?access_token=` on `GET /__admin/events`; `--admin-token`). Nil or empty: the admin
    /// API is open.
    public var adminToken: String?
    /// Which web origins may read the answers of the routes outside `/__admin` (`--cors`):
    /// every origin by default, so a web app on its own dev-server origin can call the mock.
    /// On the admin API only origins this names explicitly get CORS; others are refused.
    public var cors = CORSPolicy(mode: .any)
    /// `Host` names answered besides loopback, IP addresses, names without a dot and the
    /// listening host (`--allowed-hosts`; `HostPolicy`): `name`, `.example.com` for it and
    /// its subdomains, `*` for any.
    public var allowedHosts: [String] = []
    /// Proxy mode (`--proxy`): a team's own backend behind the mock. Off by default.
    public var proxy = ProxySettings()
    /// Seed data; `POST /__admin/reset` returns to it.
    public var scenario = Scenario.builtIn
    /// A directory of WireMock mapping files (`--mappings`), loaded by `start()`; reset
    /// returns to them. Nil: no stubs at start.
    public var mappingsDirectory: String?
    /// Every mapping's response is a template (`--global-response-templating`), as if each
    /// named `"transformers": ["response-template"]`.
    public var globalResponseTemplating = false
    /// Size of the padding comment sent first on every stream (`?padding=` per request).
    /// Default 0: none.
    public var ssePadding = 0
    /// An HTTPS listener beside the plain one (`--tls-port`); nil for none.
    public var tls: TLSListenerSettings?
    /// How many log lines the process has dropped because nobody read its output, for
    /// `GET /__admin/state` (`droppedLogLines`); set by the `mockbackend` executable, whose
    /// log writer counts them. Nil: none are dropped (an app in a test logs where it likes).
    package var droppedLogLines: (@Sendable () -> Int)?

    public init(
        http: HTTPServerConfiguration = HTTPServerConfiguration(),
        publicDirectory: String? = nil,
        openAPIDocument: String? = nil
    ) {
        self.http = http
        self.publicDirectory = publicDirectory
        self.openAPIDocument = openAPIDocument
    }
}

/// The HTTPS listener: same routes and state as the plain one, on its own port.
public struct TLSListenerSettings: Sendable {
    /// Port to bind on the same host as the plain listener; 0 lets the kernel choose.
    public var port: Int
    /// The TLS transport, e.g. a `TLSContext` from the `MockBackendTLS` module.
    public var transport: any StreamTransport
    /// The certificate chain in PEM, served at `GET /__admin/tls/cert.pem`.
    public var certificatePEM: String
    /// SHA-256 of the leaf certificate, colon-separated hex.
    public var sha256Fingerprint: String

    public init(port: Int, transport: any StreamTransport, certificatePEM: String, sha256Fingerprint: String) {
        self.port = port
        self.transport = transport
        self.certificatePEM = certificatePEM
        self.sha256Fingerprint = sha256Fingerprint
    }
}

/// The version the server reports.
package enum MockBackendVersion {
    package static let current = "0.1.0"
}

extension MockBackendConfiguration {
    /// How mappings are read: the templating flag, and the `__files` directory of the
    /// `--mappings` directory's WireMock root.
    package var stubParseOptions: StubParseOptions {
        StubParseOptions(
            globalTemplating: globalResponseTemplating,
            bodyFilesDirectory: mappingsDirectory.flatMap(MappingFiles.bodyFilesDirectory(for:)))
    }
}
