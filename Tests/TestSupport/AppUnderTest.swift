import MockBackend
import MockBackendTesting

/// What a test drives the mock through: the app over a socket (`RunningServer`, from
/// `withRunningServer`) or in memory (`InMemoryApp`, from `withInMemoryApp`). Helpers that
/// only send requests and read answers take either, so a test moves off sockets by
/// changing the function that starts its app.
public protocol AppUnderTest: Sendable {
    var app: MockBackendApp { get }
    /// The typed admin client.
    var admin: AdminClient { get }
    /// The calls tests set up with: logins, uploads.
    var api: TestAPIClient { get }
    /// One request on a new connection, and its answer as read; a body gets
    /// `Content-Type: application/json` unless `headers` name another.
    func request(_ method: String, _ target: String, headers: [String: String], body: String?) async throws
        -> RawResponse
}

extension AppUnderTest {
    public func request(_ method: String, _ target: String, headers: [String: String] = [:]) async throws
        -> RawResponse
    {
        try await request(method, target, headers: headers, body: nil)
    }

    public func request(_ method: String, _ target: String, body: String) async throws -> RawResponse {
        try await request(method, target, headers: [:], body: body)
    }
}

extension RunningServer: AppUnderTest {}
