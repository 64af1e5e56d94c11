import Logging
import MockBackend
import MockBackendHTTP
import MockBackendSupport
import MockBackendTesting
import ServerSentEvents

/// The mock app without sockets: a request goes straight to the app's responder, as a
/// listener would hand it over, and a streamed body goes into a recording sink on the
/// app's one manual executor. For testing what the app says and when (routes, sessions,
/// streams, the simulation clock) without a network in between; the wire itself — framing,
/// faults, timeouts — is tested over loopback.
///
/// Faults and stub delays shape bytes on their way to a socket, and compression happens
/// there too: here the body is the route's own.
public final class InMemoryApp: AppUnderTest, Sendable {
    /// One answer: its status and headers, and its body, or for a stream the sink it writes to.
    public struct Response: Sendable {
        public let status: Int
        public let headers: HTTPHeaders
        /// A body known in full; empty for a stream.
        public let body: [UInt8]
        /// The sink of a streamed body, subscribed and run up to now.
        public let stream: RecordingSink?

        /// The body as text.
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public let app: MockBackendApp
    /// Where every streamed body's work runs; `run()` does what event loops would.
    public let executor = ManualExecutor()
    private let connections = LockedValue<UInt64>(0)

    /// The typed admin client, its calls handed to the app's responder; after each, the
    /// work it queued for streams runs.
    public var admin: AdminClient {
        AdminClient(adminToken: app.configuration.adminToken.flatMap { $0.isEmpty ? nil : $0 }, respond: respond)
    }

    /// The calls tests set up with (logins, uploads), handed to the app's responder.
    public var api: TestAPIClient {
        TestAPIClient(respond: respond)
    }

    /// Answers `request` with a body known in full, then runs what it queued for streams.
    private var respond: @Sendable (HTTPRequest) -> HTTPResponse {
        let (responder, executor) = (app.responder, executor)
        return { request in
            let response = responder.respond(to: request)
            executor.run()
            return response
        }
    }

    /// An app with `configuration`, its simulation started (stream timers, workflows,
    /// mapping files), not listening.
    public init(_ configuration: MockBackendConfiguration = MockBackendConfiguration()) throws {
        app = MockBackendApp(
            configuration: configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try app.startSimulation()
    }

    deinit {
        app.clock.stop()
    }

    /// Answers one request as `RunningServer.request` would over a socket: on a new
    /// connection; a body gets `Content-Type: application/json` unless `headers` name
    /// another. A streamed answer is read to its end.
    public func request(_ method: String, _ target: String, headers: [String: String], body: String?) async throws
        -> RawResponse
    {
        let answer = answer(method, target, headers: headers, body: body)
        guard let sink = answer.stream else {
            return RawResponse(
                status: answer.status, headers: answer.headers, body: method == "HEAD" ? [] : answer.body)
        }
        // As a client reading over a socket does: the answer once the stream has ended.
        let stream = InMemoryStream(sink: sink, status: answer.status, headers: answer.headers, app: self)
        return try await stream.readResponse(timeout: .seconds(20))
    }

    /// Answers one request, as if it came on a new connection; a body gets
    /// `Content-Type: application/json` unless `headers` name another. A streamed answer
    /// is subscribed to a recording sink, and the executor run.
    public func answer(
        _ method: String, _ target: String, headers: [String: String] = [:], body: String? = nil,
        framing: StreamFraming = .eventStream
    ) -> Response {
        var fields = HTTPHeaders()
        fields.set("Host", "127.0.0.1")
        for (name, value) in headers { fields.set(name, value) }
        if body != nil, fields["Content-Type"] == nil { fields.set("Content-Type", "application/json") }
        var request = HTTPRequest(method: method, target: target, headers: fields, body: Array((body ?? "").utf8))
        let connection = connections.withLock { next in
            next += 1
            return next
        }
        request.connectionID = connection
        let response = app.responder.respond(to: request)
        guard case .stream(let produce) = response.body else {
            executor.run()
            let bytes: [UInt8]
            if case .bytes(let body) = response.body { bytes = body } else { bytes = [] }
            return Response(status: response.status, headers: response.headers, body: bytes, stream: nil)
        }
        let sink = RecordingSink(connectionID: connection, framing: framing, executor: executor)
        executor.execute { produce(sink) }
        executor.run()
        return Response(status: response.status, headers: response.headers, body: [], stream: sink)
    }

    public func openStream(_ target: String, headers: [String: String]) async throws -> any StreamClient {
        let answer = answer("GET", target, headers: headers)
        guard let sink = answer.stream else { throw RawClientError.closedByPeer }
        return InMemoryStream(sink: sink, status: answer.status, headers: answer.headers, app: self)
    }

    /// Moves the manual clock forward (`--clock manual`), then runs what that queued.
    public func advance(by duration: Duration) {
        app.clock.advance(by: duration)
        executor.run()
    }

    /// Runs the work waiting on the executor.
    public func run() { executor.run() }
}

/// Makes an app in memory with `configuration` (`InMemoryApp`), runs `body` with it, and
/// stops its clock: the socketless counterpart of the kit's `withRunningServer`, with the
/// same `request`, `admin`, `api` and `app`.
public func withInMemoryApp<Result: Sendable>(
    _ configuration: MockBackendConfiguration = MockBackendConfiguration(),
    _ body: (InMemoryApp) async throws -> Result
) async throws -> Result {
    let app = try InMemoryApp(configuration)
    defer { app.app.clock.stop() }
    return try await body(app)
}
