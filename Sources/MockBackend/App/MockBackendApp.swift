import Logging
import MockBackendHTTP

/// The mock backend: every route wired onto one HTTP server.
///
/// Usable as a library: start it on port 0 inside a test or a UI-test target, read `port`,
/// drive it, and `stop()` it.
public final class MockBackendApp: Sendable {
    public let configuration: MockBackendConfiguration
    package let router: Router
    /// Every event stream, and the stream journal.
    package let streams: EventStreamRegistry
    /// Users, sessions and the player API's behaviour.
    package let player: PlayerService
    /// Every request answered outside the admin API (`AdminAPI`).
    package let requests: RequestJournal
    /// The live feed of what happens, `GET /__admin/events`.
    package let events: AdminEventFeed
    /// The fault rules in force.
    package let faults: FaultStore
    /// The stub mappings (WireMock-style), `/__admin/mappings`.
    package let stubs: StubStore
    /// The clock behind every simulated duration.
    package let clock: SimulationClock
    /// CSV import jobs.
    package let imports: ImportService
    /// Image generations.
    package let generations: GenerationService
    /// Workflow sessions.
    package let workflows: WorkflowService
    /// What proxied requests share (`--proxy`, mappings with `proxyBaseUrl`).
    let proxy: ProxyContext
    /// The dashboard and other static files.
    private let staticFiles: StaticFiles
    /// Where every request goes in: the routes with their middleware, then stubs and
    /// static files. The listeners hand it their requests; a test may too.
    package let responder: RoutingResponder
    private let server: HTTPServer
    /// The HTTPS listener, when `configuration.tls` asks for one.
    private let tlsServer: HTTPServer?
    private let logger: Logger

    public init(configuration: MockBackendConfiguration, logger: Logger = Logger(label: "mockbackend")) {
        self.configuration = configuration
        self.logger = logger
        let rates = configuration.scenario.rates
        let clock = SimulationClock(mode: configuration.clock)
        self.clock = clock
        let streams = EventStreamRegistry(
            clock: clock, defaultRetention: rates.retention ?? 1000, floodPatience: configuration.floodPatience)
        self.streams = streams
        let events = AdminEventFeed(streams: streams)
        let faults = FaultStore(ids: IdentifierSource(seed: configuration.seed))
        self.faults = faults
        let stubs = StubStore(seed: configuration.seed, parseOptions: configuration.stubParseOptions)
        self.stubs = stubs
        self.events = events
        let player = PlayerService(
            accounts: AccountStore(users: configuration.scenario.users), streams: streams,
            settings: configuration.player, clock: clock, events: events)
        self.player = player
        let requests = RequestJournal(events: events)
        self.requests = requests
        let imports = ImportService(
            streams: streams, clock: clock, ids: IdentifierSource(seed: configuration.seed),
            settings: configuration.imports.applying(rates, finishedJobLimit: configuration.finishedJobLimit))
        self.imports = imports
        let generations = GenerationService(
            accounts: player.accounts, streams: streams, clock: clock, ids: IdentifierSource(seed: configuration.seed),
            settings: configuration.generations.applying(rates, finishedJobLimit: configuration.finishedJobLimit))
        self.generations = generations
        player.onSessionEnd { [weak generations] session, cause in generations?.sessionEnded(session, cause: cause) }
        let workflowAPIKey = configuration.workflowAPIKey.flatMap { $0.isEmpty ? nil : $0 } ?? SecureToken.uuid()
        var workflowSettings = WorkflowSettings(apiKey: workflowAPIKey, epoch: .now)
        workflowSettings.finishedSessionLimit = configuration.finishedJobLimit
        let workflows = WorkflowService(
            streams: streams, clock: clock, ids: IdentifierSource(seed: configuration.seed), settings: workflowSettings)
        self.workflows = workflows
        // Always there: mappings with `proxyBaseUrl` proxy without `--proxy` too.
        let proxy = ProxyContext(settings: configuration.proxy, streams: streams, events: events)
        self.proxy = proxy
        let staticFiles = StaticFiles(publicDirectory: configuration.publicDirectory)
        self.staticFiles = staticFiles
        let forwarder = ProxyForwarder(context: proxy)
        let templates = TemplateEnvironment(
            clock: clock, epoch: .now, random: IdentifierSource(seed: configuration.seed))
        let stubServices = StubServices(
            forwarder: forwarder, replay: StubReplay.Services(streams: streams, clock: clock, events: events),
            templates: templates)
        let router = Self.makeRouter(
            configuration: configuration, stubServices: stubServices, streams: streams, player: player,
            requests: requests, clock: clock,
            imports: imports, generations: generations, workflows: workflows, events: events, faults: faults,
            stubs: stubs, proxy: proxy, staticFiles: staticFiles)
        self.router = router
        if case .missing(let path) = staticFiles {
            logger.warning("public directory not found; static files are off", metadata: ["path": "\(path)"])
        }
        // Public paths no route knows: a stub if one matches, else the upstream in proxy
        // mode, else a static file.
        let upstream = configuration.proxy.upstream
        let fallback: @Sendable (HTTPRequest) throws -> HTTPResponse? = { request in
            if let response = stubServices.answer(request, from: stubs) { return response }
            if let upstream = upstream ?? proxy.recorder.target { return forwarder.forward(request, to: upstream) }
            return try staticFiles.respond(to: request)
        }
        // The router carries the middleware: the public stack around the public routes and
        // this fallback, the admin stack around the admin group (`makeRouter`). Around both,
        // what browsers may do: hosts, origins, CORS.
        let crossOrigin = CrossOriginMiddleware(
            cors: configuration.cors,
            hosts: HostPolicy(listeningHost: configuration.http.host, allowedHosts: configuration.allowedHosts))
        // What goes upstream takes its body along as it arrives (an upload is not held whole).
        let bodyStreaming: @Sendable (HTTPRequest, Bool) -> Bool = { head, reachesFallback in
            guard !AdminAPI.contains(path: head.path) else { return false }
            if let stub = stubs.match(head, priorityAtMost: StubMiddleware.overridingPriority) {
                return stub.proxyHost != nil
            }
            guard reachesFallback else { return false }
            if let stub = stubs.match(head) { return stub.proxyHost != nil }
            return upstream != nil || proxy.recorder.target != nil
        }
        let responder = RoutingResponder(
            router: router, middleware: [crossOrigin], fallback: fallback, bodyStreaming: bodyStreaming,
            logger: logger)
        self.responder = responder
        // Log lines never show a session token whole.
        var http = configuration.http
        http.loggedTarget = { [redaction = proxy.redaction] in redaction.loggedTarget(of: $0) }
        // A `max_concurrent_streams` fault rule lowers what new HTTP/2 connections announce.
        http.http2Settings = { [faults, events] connection in
            let (settings, fired) = faults.http2Settings()
            if let fired {
                // It acts on the connection, whose first line is the preface's `PRI *`.
                events.publish(.faultFired(.init(fired, method: "PRI", target: "*", connection: connection)))
            }
            return settings
        }
        http.onHTTP2Ending = { [endings = requests.http2Endings] in endings.note($0) }
        // A `window_stall` rule on an h2 request with a body keeps its window shut.
        http.http2RequestWindowStall = { [faults, events] head in
            guard let rule = faults.fireRequestWindowStall(for: head),
                case .windowStall(let afterBytes) = rule.fault
            else { return nil }
            events.publish(
                .faultFired(.init(rule, method: head.method, target: head.target, connection: head.connectionID)))
            return afterBytes
        }
        server = HTTPServer(configuration: http, responder: responder, logger: logger)
        tlsServer = configuration.tls.map { tls in
            var http = http
            http.port = tls.port
            return HTTPServer(configuration: http, responder: responder, logger: logger, transport: tls.transport)
        }
    }

    /// The one wiring function: every route of the mock, in one place, in two parts.
    ///
    /// - The public routes (in proxy mode only the backends `--backends` names; the rest
    ///   goes upstream), with the request journal, the fault rules and the priority stubs
    ///   around them (outermost first); the same stack wraps the fallback (the other stubs,
    ///   then static files) for paths no route knows.
    /// - The admin group, every path under `AdminAPI.prefix`, with only the admin token check
    ///   around it (when `--admin-token` is set): admin requests are never journaled, faulted
    ///   or stubbed, and an unknown admin path is the group's 404, never a stub or a file.
    static func makeRouter(
        configuration: MockBackendConfiguration, stubServices: StubServices, streams: EventStreamRegistry,
        player: PlayerService,
        requests: RequestJournal, clock: SimulationClock, imports: ImportService, generations: GenerationService,
        workflows: WorkflowService, events: AdminEventFeed, faults: FaultStore, stubs: StubStore,
        proxy: ProxyContext, staticFiles: StaticFiles
    ) -> Router {
        let proxyMode = configuration.proxy.upstream != nil
        var router = Router(middleware: [
            RequestJournalMiddleware(
                journal: requests, faults: FaultMiddleware(store: faults, feed: events), redaction: proxy.redaction,
                redactsAll: proxyMode),
            StubMiddleware(stubs: stubs, services: stubServices),
        ])
        let endpoint = SSEEndpoint(padding: configuration.ssePadding, events: events)
        let adminToken = configuration.adminToken.flatMap { $0.isEmpty ? nil : $0 }
        let openAPI = OpenAPIRoutes(documentPath: configuration.openAPIDocument, adminTokenRequired: adminToken != nil)
        let backends = configuration.proxy.enabledBackends
        // In proxy mode the mock's own paths outside the backends would hide the upstream's.
        if !proxyMode {
            HealthRoutes().register(on: &router)
            openAPI.register(on: &router)
            ChannelRoutes(streams: streams, endpoint: endpoint).register(on: &router)
            ConformanceRoutes().register(on: &router)
        }
        if backends.contains(.player) { PlayerRoutes(player: player, endpoint: endpoint).register(on: &router) }
        if backends.contains(.imports) { ImportRoutes(imports: imports, endpoint: endpoint).register(on: &router) }
        if backends.contains(.generations) {
            GenerationRoutes(generations: generations, player: player, endpoint: endpoint).register(on: &router)
        }
        if backends.contains(.workflows) {
            WorkflowRoutes(workflows: workflows, endpoint: endpoint).register(on: &router)
        }

        let adminMiddleware: [any HTTPMiddleware] = adminToken.map { [AdminAuthenticationMiddleware(token: $0)] } ?? []
        router.group(AdminAPI.prefix, middleware: adminMiddleware) { admin in
            AdminHealthRoutes().register(on: &admin)
            AdminStreamRoutes(streams: streams, http2Endings: requests.http2Endings).register(on: &admin)
            AdminSessionRoutes(player: player).register(on: &admin)
            AdminUserRoutes(player: player).register(on: &admin)
            AdminStateRoutes(
                player: player, streams: streams, journal: requests, imports: imports, generations: generations,
                workflows: workflows, scenario: configuration.scenario, faults: faults, stubs: stubs,
                proxySessions: proxy.sessions, droppedLogLines: configuration.droppedLogLines
            )
            .register(on: &admin)
            AdminRequestRoutes(journal: requests).register(on: &admin)
            AdminClockRoutes(clock: clock).register(on: &admin)
            AdminFaultRoutes(store: faults).register(on: &admin)
            AdminMappingRoutes(stubs: stubs, allowsProxyHost: proxy.allows(host:)).register(on: &admin)
            AdminRecordingRoutes(recorder: proxy.recorder, stubs: stubs, allowsProxyHost: proxy.allows(host:))
                .register(on: &admin)
            AdminScenarioRoutes(stubs: stubs).register(on: &admin)
            AdminImportRoutes(imports: imports).register(on: &admin)
            AdminGenerationRoutes(generations: generations).register(on: &admin)
            AdminWorkflowRoutes(workflows: workflows).register(on: &admin)
            AdminEventRoutes(events: events, endpoint: endpoint).register(on: &admin)
            AdminTLSRoutes(certificatePEM: configuration.tls?.certificatePEM).register(on: &admin)
            AdminProxyRoutes(sessions: proxy.sessions).register(on: &admin)
            AdminFileRoutes(staticFiles: staticFiles, openAPI: openAPI).register(on: &admin)
        }
        return router
    }

    /// Loads the `--mappings` files, binds and starts serving. A bad mapping file throws
    /// `MappingFileError` before anything listens.
    public func start() throws {
        try startSimulation()
        try server.start()
        do {
            try tlsServer?.start()
        } catch {
            server.closeListener()
            clock.stop()
            throw error
        }
    }

    /// Everything `start` does but listen: loads the `--mappings` files, seeds the workflow
    /// sessions, starts the streams' heartbeats and idle checks. Enough to serve requests
    /// handed to `responder` directly, as tests of the app without sockets do.
    package func startSimulation() throws {
        if let directory = configuration.mappingsDirectory {
            let mappings = try MappingFiles.load(
                directory: directory, options: stubs.parseOptions, newID: stubs.newID)
            // The hosts the files proxy to are allowed upstreams (`--proxy-allow` for others).
            for host in mappings.compactMap(\.proxyHost) { proxy.allow(host: host) }
            stubs.loadFileMappings(mappings)
        }
        workflows.reset(to: configuration.scenario.workflows)
        if configuration.proxy.recordDirectory != nil { _ = proxy.recorder.start(RecordingSpec()) }
        // Idle closes are checked every tenth of the timeout, at least every second.
        let idleTimeout = configuration.player.userInfoIdleTimeout
        streams.startTimers(
            heartbeat: configuration.heartbeatInterval,
            idleCheck: idleTimeout > .zero ? min(idleTimeout / 10, .seconds(1)) : .zero)
    }

    /// The key every workflow route asks for: `configuration.workflowAPIKey`, or one
    /// generated at start.
    public var workflowAPIKey: String { workflows.settings.apiKey }

    /// What is served besides the routes, and from where: the dashboard, the OpenAPI document.
    public var servedFiles: ServedFiles {
        ServedFiles(staticFiles: staticFiles, openAPIDocument: configuration.openAPIDocument)
    }

    /// The bound port, once started.
    public var port: Int? { server.port }

    /// The bound HTTPS port, once started; nil without TLS.
    public var tlsPort: Int? { tlsServer?.port }

    /// What the proxy's upstream client holds now (connections, descriptors, timers).
    package var upstreamStatistics: ServerStatistics { proxy.client.statistics.current }

    /// What the HTTP server holds now (connections, descriptors, timers).
    public var statistics: ServerStatistics { server.statistics }

    /// What the HTTPS listener's server holds now; nil without TLS.
    public var tlsStatistics: ServerStatistics? { tlsServer?.statistics }

    /// Stops accepting, finishes responses in flight, ends streams, and returns when done.
    public func stop(gracePeriod: Duration = .milliseconds(1500)) async {
        // The running recording, or the last one stopped through the admin API.
        if let directory = configuration.proxy.recordDirectory,
            let mappings = proxy.recorder.stop() ?? proxy.recorder.currentMappings
        {
            do {
                let files = try RecordingFiles.write(mappings, into: directory)
                logger.info("recording written", metadata: ["directory": "\(directory)", "files": "\(files)"])
            } catch {
                logger.error("recording not written", metadata: ["directory": "\(directory)", "error": "\(error)"])
            }
        }
        clock.stop()
        proxy.stop()
        async let plain: Void = server.stop(gracePeriod: gracePeriod)
        async let secure: Void? = tlsServer?.stop(gracePeriod: gracePeriod)
        _ = await (plain, secure)
    }
}
