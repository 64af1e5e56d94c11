import Foundation
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
    /// A `GET` of a streamed answer on a new connection, read as it comes; its head has
    /// arrived (`RawClientError.closedByPeer` if the answer was no stream).
    func openStream(_ target: String, headers: [String: String]) async throws -> any StreamClient
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

    /// A `GET` with `headers` written as header lines (`"Name: value\r\n"`…), as
    /// `RawHTTPClient.get` sends them: the answer once it has ended.
    public func get(_ target: String, headers lines: String = "") async throws -> RawResponse {
        try await request("GET", target, headers: Self.fields(lines))
    }

    /// `openStream` with `headers` written as header lines.
    public func openStream(_ target: String, headerLines lines: String) async throws -> any StreamClient {
        try await openStream(target, headers: Self.fields(lines))
    }

    /// Header lines (`"Name: value\r\n"`…) as fields.
    static func fields(_ lines: String) -> [String: String] {
        var headers: [String: String] = [:]
        for line in lines.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }
}

extension AppUnderTest {
    public func openStream(_ target: String) async throws -> any StreamClient {
        try await openStream(target, headers: [:])
    }
}

extension RunningServer: AppUnderTest {
    public func openStream(_ target: String, headers: [String: String]) async throws -> any StreamClient {
        let client = try connect()
        var head = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        try client.send(head + "\r\n")
        try await client.receive(untilContains: "\r\n\r\n")
        return client
    }
}
