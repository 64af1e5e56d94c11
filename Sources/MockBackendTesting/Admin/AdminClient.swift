import Foundation
import MockBackend
import MockBackendHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A typed client of a running mock's admin API (`/__admin`, documented in
/// `openapi/openapi.yaml`), for tests: each call sends one request over HTTP and returns
/// the answer decoded into `MockBackendAPI`'s admin types, the same the server encodes and
/// decodes. A status other than the call's success throws
/// `UnexpectedResponseError`, with the server's `code` and `detail`.
///
/// ```swift
/// let admin = AdminClient(baseURL: server.baseURL)       // or server.admin
/// try await admin.sessions.expire(login.sessionId, reason: "Maintenance", code: 42)
/// try await admin.faults.add(.status(503, body: nil, retryAfter: 2), match: .init(path: "/health"), times: 1)
/// let logins = try await admin.requests.count(RequestMatcher(method: "POST", path: "/v1/player/**"))
/// ```
///
/// The calls are grouped as the API is: `sessions`, `users`, `faults`, `clock`, `streams`,
/// `requests`, `imports`, `generations`, `workflows`, the live feed `events`, and `reset()`.
/// It works with a server in the test process (`withRunningServer`) and with one started
/// on its own (`mockbackend --port 8080`), given its URL and `--admin-token`.
public struct AdminClient: Sendable {
    let http: KitHTTP

    /// - Parameters:
    ///   - baseURL: the server, e.g. `http://127.0.0.1:8080`.
    ///   - adminToken: the server's `--admin-token`, sent as `Authorization: Bearer`; nil
    ///     for a server without one.
    public init(baseURL: URL, adminToken: String? = nil, session: URLSession = .shared) {
        var headers: [String: String] = [:]
        if let adminToken { headers["Authorization"] = "Bearer \(adminToken)" }
        http = KitHTTP(baseURL: baseURL, headers: headers, session: session)
    }

    /// A client of an app's admin API without a socket: each call goes straight to
    /// `respond` (the app's responder), as a listener would hand it over.
    package init(adminToken: String? = nil, respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        var headers: [String: String] = [:]
        if let adminToken { headers["Authorization"] = "Bearer \(adminToken)" }
        http = KitHTTP(
            baseURL: URL(string: "http://127.0.0.1")!, headers: headers, transport: .inMemory(respond))
    }

    /// The server this client talks to.
    public var baseURL: URL { http.baseURL }

    /// Player sessions: list, expire, terminate.
    public var sessions: Sessions { Sessions(http: http) }
    /// Users: list, create, post to a balance, change, delete, expire all sessions.
    public var users: Users { Users(http: http) }
    /// Fault rules: add, list, remove.
    public var faults: Faults { Faults(http: http) }
    /// The simulation clock: read, advance (manual clock), set the speed (real clock).
    public var clock: SimulationClockControl { SimulationClockControl(http: http) }
    /// Event streams: push, disconnect, list, the connection journal.
    public var streams: Streams { Streams(http: http) }
    /// The request journal: list, count, clear.
    public var requests: Requests { Requests(http: http) }
    /// CSV import jobs: list, pause, resume, complete, fail.
    public var imports: Imports { Imports(http: http) }
    /// Image generations: list, complete, fail.
    public var generations: Generations { Generations(http: http) }
    /// Workflow sessions: list, create, publish an event, complete.
    public var workflows: Workflows { Workflows(http: http) }
    /// The live feed, `GET /__admin/events`: wait for what happens.
    public var events: Events { Events(http: http) }

    /// `POST /__admin/reset`: back to the scenario; sessions, streams, jobs, journals,
    /// faults and stubs cleared (the live feed goes on).
    public func reset() async throws {
        try await http.send("POST", "/__admin/reset")
    }
}

/// A response that is not what the call expects: its status, and the `code` and `detail`
/// of a problem body (`application/problem+json`) when it has one.
public struct UnexpectedResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request, as `METHOD /path`.
    public var request: String
    public var status: Int
    /// The problem's `code` (`SESSION_NOT_FOUND`, `INVALID_FAULT`, …), if the body has one.
    public var code: String?
    public var detail: String?
    /// The body as text.
    public var body: String

    public var description: String {
        "\(request) answered \(status)" + (code.map { " \($0)" } ?? "") + (detail.map { ": \($0)" } ?? "")
    }
}
