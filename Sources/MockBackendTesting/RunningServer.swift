// One `import MockBackendTesting` is enough in a test file: this module re-exports what a
// test of a client against the mock names —
// - `MockBackend`: `MockBackendApp` (`RunningServer.app`) and `MockBackendConfiguration`;
// - `MockBackendAPI`: the wire types of the backends (`PlayerLoginResponse`, `ImportStatus`,
//   `JSONValue`, …) and of the admin API, which the server and `AdminClient` share: the typed
//   `Fault` and `FaultRule.Match`, `RequestMatcher`, `DisconnectMode`, the journal and stream
//   snapshots, the live feed's `AdminFeedEvent`;
// - `ServerSentEvents`: `ServerSentEvent`, the codec;
// - `MockBackendClient`: `EventSource`, `UserInfoStream`, `JobTracker`, `StatusPoller`.
// A convenience of a testing module: app code imports the modules it uses one by one.

import Foundation
import Logging
@_exported import MockBackend
@_exported import MockBackendAPI
@_exported import MockBackendClient
import MockBackendHTTP
@_exported import ServerSentEvents

/// A server started by `withRunningServer`, listening on 127.0.0.1 on a port the kernel chose.
public struct RunningServer: Sendable {
    public let app: MockBackendApp
    public let port: Int
    /// The HTTPS port when the configuration has a TLS listener.
    public let tlsPort: Int?

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// A typed client of this server's admin API.
    public var admin: AdminClient {
        AdminClient(baseURL: baseURL, adminToken: app.configuration.adminToken.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The calls of this server's public API that tests set up with: logins, CSV uploads.
    public var api: TestAPIClient { TestAPIClient(baseURL: baseURL) }

    /// A new raw connection to the server.
    public func connect() throws -> RawHTTPClient {
        try RawHTTPClient(port: port)
    }

    /// Sends one request on a new connection and reads the response. A body gets
    /// `Content-Type: application/json` unless `headers` name another.
    public func request(
        _ method: String, _ target: String, headers: [String: String] = [:], body: String? = nil
    ) async throws -> RawResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        var fields = headers
        if let body {
            if !fields.keys.contains(where: { $0.lowercased() == "content-type" }) {
                fields["Content-Type"] = "application/json"
            }
            fields["Content-Length"] = String(body.utf8.count)
        }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        let client = try connect()
        try client.send(head + "\r\n" + (body ?? ""))
        return try await client.readResponse(forHEAD: method == "HEAD")
    }
}

/// Starts the mock in-process on 127.0.0.1:0, runs `body`, and always stops the server,
/// whether `body` returns or throws.
public func withRunningServer<Result: Sendable>(
    _ configuration: MockBackendConfiguration = .forTesting(),
    logger: Logger = Logger(label: "mockbackend.test", factory: { _ in SwiftLogNoOpLogHandler() }),
    _ body: (RunningServer) async throws -> Result
) async throws -> Result {
    var configuration = configuration
    configuration.http.host = "127.0.0.1"
    configuration.http.port = 0
    configuration.tls?.port = 0
    let app = MockBackendApp(configuration: configuration, logger: logger)
    try app.start()
    let server = RunningServer(app: app, port: app.port ?? 0, tlsPort: app.tlsPort)
    return try await runThenStop({ try await body(server) }, stop: { await app.stop() })
}

/// Starts a bare `HTTPServer` with `responder` on 127.0.0.1:0, runs `body`, and always
/// stops it. For tests of the HTTP core that need no mock routes; `logger` gets what the
/// server logs (nothing is kept by default).
package func withHTTPServer<Result: Sendable>(
    configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
    responder: any HTTPResponder,
    logger: Logger = Logger(label: "mockbackend.test", factory: { _ in SwiftLogNoOpLogHandler() }),
    _ body: (HTTPServer) async throws -> Result
) async throws -> Result {
    var configuration = configuration
    configuration.host = "127.0.0.1"
    configuration.port = 0
    let server = HTTPServer(configuration: configuration, responder: responder, logger: logger)
    try server.start()
    return try await runThenStop({ try await body(server) }, stop: { await server.stop() })
}

/// Runs `body`, then `stop`, whether `body` returns or throws.
private func runThenStop<Result>(
    _ body: () async throws -> Result, stop: () async -> Void
) async throws -> Result {
    do {
        let result = try await body()
        await stop()
        return result
    } catch {
        await stop()
        throw error
    }
}
