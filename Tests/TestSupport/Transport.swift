import MockBackend
import MockBackendHTTP
import MockBackendTLS
import MockBackendTesting

/// How a parameterised test reaches the app: in memory, or over loopback in each protocol
/// clients in the field speak — HTTP/1.1, h2 negotiated by ALPN on the TLS listener, h2c
/// with prior knowledge. A test that takes `Transport.allCases` (or `.overSockets`, when
/// what it checks happens on the way to a socket: faults, delays) and starts its app with
/// `withApp(over:)` runs the same assertions over each.
public enum Transport: String, CaseIterable, Sendable, CustomStringConvertible {
    case inMemory = "in memory"
    case http11 = "HTTP/1.1"
    case h2 = "h2 (TLS)"
    case h2c = "h2c"

    public var description: String { rawValue }

    /// Every transport this build has: h2 and h2c only where HTTP/2 is (`HTTP2Support`).
    public static var available: [Transport] {
        allCases.filter { $0 == .inMemory || $0 == .http11 || HTTP2Support.isAvailable }
    }

    /// The transports over a socket.
    public static var overSockets: [Transport] { available.filter { $0 != .inMemory } }
}

/// Starts the app with `configuration` for `transport`, runs `body` with it, and always
/// stops what it started. For h2 the server gets a TLS listener with a fresh self-signed
/// certificate (the client does not check it: trust is not what these tests are about).
public func withApp<Result: Sendable>(
    over transport: Transport, _ configuration: MockBackendConfiguration = .forTesting(),
    _ body: (any AppUnderTest) async throws -> Result
) async throws -> Result {
    switch transport {
    case .inMemory:
        return try await withInMemoryApp(configuration) { try await body($0) }
    case .http11:
        return try await withRunningServer(configuration) { try await body($0) }
    case .h2, .h2c:
        #if canImport(CNghttp2)
        var configuration = configuration
        if transport == .h2 {
            configuration.tls = try .forTesting(TLSIdentity.selfSigned())
        }
        return try await withRunningServer(configuration) { server in
            let app = HTTP2App(server: server, overTLS: transport == .h2)
            defer { app.close() }
            return try await body(app)
        }
        #else
        fatalError("HTTP/2 is not in this build: use Transport.available")
        #endif
    }
}
