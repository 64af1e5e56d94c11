import Foundation
import MockBackend
import MockBackendClient
import MockBackendHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The calls of the mock's public API that tests set up with: a player login, a generation
/// login, a CSV upload as a browser or `curl -F` sends it. Typed like `AdminClient`: a
/// status other than the call's success throws `UnexpectedResponseError`.
///
/// ```swift
/// let login = try await server.api.login(username: "demo", password: "demo1234")
/// let upload = try await server.api.uploadCSV("title,author\r\nDune,Frank Herbert\r\n")
/// ```
public struct TestAPIClient: Sendable {
    let http: KitHTTP

    public init(baseURL: URL, session: URLSession = .shared) {
        http = KitHTTP(baseURL: baseURL, headers: [:], session: session)
    }

    /// A client of an app's public API without a socket: each call goes straight to
    /// `respond` (the app's responder).
    package init(respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        http = KitHTTP(baseURL: URL(string: "http://127.0.0.1")!, headers: [:], transport: .inMemory(respond))
    }

    /// The server this client talks to.
    public var baseURL: URL { http.baseURL }

    /// `POST /v1/player/legislation/login`: a player session (the seeded users are `demo` /
    /// `demo1234`, userId 7000001, and `alice` / `alice1234`, 7000002). 403 throws.
    public func login(username: String = "demo", password: String = "demo1234") async throws -> PlayerLoginResponse {
        try await http.call(
            "POST", "/v1/player/legislation/login", json: PlayerLoginRequest(username: username, password: password))
    }

    /// `POST /api/auth/login`: a bearer token of the generation API (the same session store).
    public func generationToken(email: String = "demo@example.com", password: String = "demo1234") async throws
        -> String
    {
        let answer: [String: JSONValue] = try await http.call(
            "POST", "/api/auth/login", json: ["email": email, "password": password])
        guard case .string(let token)? = answer["token"] else {
            throw UnexpectedResponseError(
                request: "POST /api/auth/login", status: 200, code: nil, detail: "no token", body: "\(answer)")
        }
        return token
    }

    /// `POST /api/v2/imports` (or V1's `/api/import/csv-gemini`): `csv` as the `file` part of
    /// a multipart/form-data body. Returns the queued job and its stream's path.
    @discardableResult
    public func uploadCSV(_ csv: String, filename: String = "books.csv", v1: Bool = false) async throws
        -> ImportAccepted
    {
        let form = MultipartForm(file: Data(csv.utf8), name: "file", filename: filename, contentType: "text/csv")
        let data = try await http.send(
            "POST", "/" + (v1 ? ImportPaths.uploadV1 : ImportPaths.upload), body: form.body,
            contentType: form.contentType)
        return try JSONDecoder().decode(ImportAccepted.self, from: data)
    }

    /// The user-info stream of a login, as the client library reads it (`UserInfoStream`):
    /// typed messages, reconnection with Last-Event-ID, a stop on `SESSION_EXPIRATION`.
    /// Not started: call `start()`.
    public func userInfoStream(
        for login: PlayerLoginResponse, policy: ReconnectionPolicy = ReconnectionPolicy(), clientId: String? = nil
    ) -> UserInfoStream {
        UserInfoStream(
            baseURL: baseURL, userId: login.userId, sessionId: login.sessionId, policy: policy, clientId: clientId)
    }

    /// The user-info stream of a login with a whole configuration: a Last-Event-ID to resume
    /// from, an idle timeout, what a 403 does. Not started: call `start()`.
    public func userInfoStream(
        for login: PlayerLoginResponse, configuration: UserInfoStreamConfiguration
    ) -> UserInfoStream {
        UserInfoStream(
            baseURL: baseURL, userId: login.userId, sessionId: login.sessionId, configuration: configuration)
    }
}

/// A multipart/form-data body with one file part (RFC 7578), as browsers and `curl -F` send it.
struct MultipartForm {
    let boundary = "mockbackend-" + UUID().uuidString
    let body: Data

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    init(file: Data, name: String, filename: String, contentType: String) {
        var body = Data()
        body.append(Data("--\(boundary)\r\n".utf8))
        body.append(Data("Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\n".utf8))
        body.append(Data("Content-Type: \(contentType)\r\n\r\n".utf8))
        body.append(file)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        self.body = body
    }
}
