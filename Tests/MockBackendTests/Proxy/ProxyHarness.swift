import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// A mock in proxy mode in front of a second, in-process mock as its upstream: both on
/// real sockets, the upstream's streams driven directly, so every relayed event is one a
/// test decided to send.
func withProxiedUpstream<Result: Sendable>(
    _ settings: ProxySettings = ProxySettings(),
    _ body: (_ upstream: RunningServer, _ proxy: RunningServer) async throws -> Result
) async throws -> Result {
    try await withRunningServer { upstream in
        var configuration = MockBackendConfiguration.forTesting()
        configuration.proxy = settings
        configuration.proxy.upstream = UpstreamOrigin(scheme: "http", host: "127.0.0.1", port: upstream.port)
        return try await withRunningServer(configuration) { proxy in try await body(upstream, proxy) }
    }
}

/// Proxy settings with the fields tests change.
func proxySettings(
    token: ProxyTokenSource = .bearer, backends: Set<ProxySettings.Backend>? = nil,
    timeout: Duration = .seconds(30)
) -> ProxySettings {
    var settings = ProxySettings()
    settings.token = token
    settings.backends = backends
    settings.timeout = timeout
    return settings
}

/// A mock in proxy mode in front of `upstream`, a server of the test's own.
func withProxy<Result: Sendable>(
    to port: Int, _ settings: ProxySettings = ProxySettings(),
    _ body: (_ proxy: RunningServer) async throws -> Result
) async throws -> Result {
    var configuration = MockBackendConfiguration.forTesting()
    configuration.proxy = settings
    configuration.proxy.upstream = UpstreamOrigin(scheme: "http", host: "127.0.0.1", port: port)
    return try await withRunningServer(configuration, body)
}

/// `withProxy` with the proxy reached over `transport`.
func withProxy<Result: Sendable>(
    over transport: Transport, to port: Int, _ settings: ProxySettings = ProxySettings(),
    _ body: (_ proxy: any AppUnderTest) async throws -> Result
) async throws -> Result {
    var configuration = MockBackendConfiguration.forTesting()
    configuration.proxy = settings
    configuration.proxy.upstream = UpstreamOrigin(scheme: "http", host: "127.0.0.1", port: port)
    return try await withApp(over: transport, configuration, body)
}

extension RunningServer {
    /// Opens `GET target` through a proxy and waits until the upstream has its subscriber on
    /// `channel` (`channels/<name>`).
    func openRelayed(
        _ target: String, headers: String = "", upstream: RunningServer, channel: String
    ) async throws -> RawHTTPClient {
        let client = try connect()
        try client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n")
        try await client.receive(untilContains: "\r\n\r\n")
        #expect(await eventually { upstream.app.streams.existingStream(named: channel)?.subscriberCount == 1 })
        return client
    }

    /// Publishes one event on the channel stream `name`.
    func publish(_ name: String, _ data: String, id: String? = nil) {
        app.streams.stream(named: name).publish(ServerSentEvent(data: data, id: id))
    }
}

/// The `data` of every event in `bytes`.
func eventData(_ bytes: [UInt8]) -> [String] {
    var parser = SSEParser()
    return parser.feed(bytes).compactMap { if case .event(let event) = $0 { event.data } else { nil } }
}
