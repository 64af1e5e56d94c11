import MockBackendHTTP
import MockBackendSupport

/// What every proxied request shares: the settings, the upstream client, the hosts requests
/// may go to, the session overlay, and where proxied streams and events are recorded.
final class ProxyContext: Sendable {
    let settings: ProxySettings
    let client: UpstreamClient
    let streams: EventStreamRegistry
    let sessions = ProxySessions()
    let redaction: SecretRedaction
    let events: AdminEventFeed
    /// Records proxied exchanges while a recording runs.
    let recorder: ProxyRecorder
    /// Hosts upstream requests may go to (`ProxySettings.allowedHosts`, the `--proxy` host,
    /// the hosts of mappings loaded at start), lowercased.
    private let allowedHosts: LockedValue<Set<String>>

    init(settings: ProxySettings, streams: EventStreamRegistry, events: AdminEventFeed) {
        self.settings = settings
        self.streams = streams
        self.events = events
        redaction = SecretRedaction(token: settings.token)
        recorder = ProxyRecorder(redaction: redaction)
        var clientSettings = UpstreamClientSettings()
        clientSettings.headTimeout = settings.timeout
        var transports: [String: any UpstreamTransport] = [:]
        if let tls = settings.tlsTransport { transports[tls.scheme] = tls }
        client = UpstreamClient(settings: clientSettings, transports: transports)
        var hosts = Set(settings.allowedHosts.map { $0.lowercased() })
        if let upstream = settings.upstream { hosts.insert(upstream.host) }
        allowedHosts = LockedValue(hosts)
    }

    /// Whether requests may go to `host`.
    func allows(host: String) -> Bool {
        allowedHosts.withLock { $0.contains(host.lowercased()) }
    }

    /// Lets requests go to `host` from now on (a mapping loaded at start names it).
    func allow(host: String) {
        _ = allowedHosts.withLock { $0.insert(host.lowercased()) }
    }

    /// Subscribes the client's side of a proxied stream to `proxy/<path>` of `request`, and
    /// notes it under its session `token`; one whose token expired meanwhile is ended as the
    /// token's other streams were. `onLeave` runs once the client's side has ended.
    func joinRelay(
        _ sink: any StreamSink, request: HTTPRequest, lastEventID: String?, token: String?,
        onLeave: @escaping @Sendable () -> Void
    ) -> (EventStream, StreamConnectionRecord) {
        let connection = sink.connectionID
        let (stream, record) = streams.withRelayStream(named: ProxiedResponse.streamName(of: request)) { stream in
            let record = stream.attachRelay(
                sink, request: redaction.redacting(request), lastEventID: lastEventID, events: events
            ) { [self] in
                if let token { sessions.streamClosed(token: token, connection: connection) }
                streams.removeIfUnused(named: stream.name)
                onLeave()
            }
            return (stream, record)
        }
        if let token, !sessions.streamOpened(token: token, stream: stream, connection: connection) {
            stream.endRelay(of: connection, with: nil, cause: .sessionExpired)
        }
        return (stream, record)
    }

    /// Closes every upstream connection; proxied streams end as their upstreams closed.
    func stop() {
        client.stop()
    }
}
