import Foundation
import MockBackendAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why the authenticator could not get a session.
public enum AuthenticationError: Error, Sendable, Equatable {
    /// The login itself answered 403: the stored credentials are wrong. Never retried.
    case invalidCredentials
    /// The login answered another status.
    case loginFailed(status: Int)
    /// The login response could not be read.
    case malformedResponse
}

/// Holds a player's credentials, logs in, and sends REST calls with `X-SessionId`.
///
/// When a call answers 401 or 403 the session is renewed once for all callers that saw the
/// same stale session (single flight: twenty calls failing together cause one login),
/// and each call is retried once. A 403 from the login itself ends in
/// `AuthenticationError.invalidCredentials`, never in a loop.
public actor PlayerAuthenticator {
    public let baseURL: URL
    private let credentials: PlayerLoginRequest
    private let session: URLSession
    private var current: PlayerLoginResponse?
    private var inFlight: Task<PlayerLoginResponse, any Error>?
    /// Logins attempted so far.
    public private(set) var loginAttempts = 0

    public init(baseURL: URL, username: String, password: String, session: URLSession = .shared) {
        self.baseURL = baseURL
        credentials = PlayerLoginRequest(username: username, password: password)
        self.session = session
    }

    /// The current session id, logging in first if there is none.
    public func sessionId() async throws -> String {
        if let current { return current.sessionId }
        return try await login().sessionId
    }

    /// The logged-in user's id, logging in first if needed.
    public func userId() async throws -> Int {
        if let current { return current.userId }
        return try await login().userId
    }

    /// Sends `request` with the session header; on 401/403 renews the session once and
    /// retries once.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let stale = try await sessionId()
        let first = try await perform(request, sessionId: stale)
        guard first.1.statusCode == 401 || first.1.statusCode == 403 else { return first }
        let renewed = try await renew(replacing: stale)
        return try await perform(request, sessionId: renewed)
    }

    /// Renews a session that answered 401/403, unless another caller already did.
    public func renew(replacing stale: String) async throws -> String {
        if let current, current.sessionId != stale { return current.sessionId }
        if current?.sessionId == stale { current = nil }
        return try await login().sessionId
    }

    /// Logs in, joining a login already in flight.
    @discardableResult
    public func login() async throws -> PlayerLoginResponse {
        if let inFlight { return try await inFlight.value }
        loginAttempts += 1
        let task = Task { [baseURL, credentials, session] in
            try await Self.performLogin(baseURL: baseURL, credentials: credentials, session: session)
        }
        inFlight = task
        do {
            let response = try await task.value
            current = response
            inFlight = nil
            return response
        } catch {
            inFlight = nil
            throw error
        }
    }

    private func perform(_ request: URLRequest, sessionId: String) async throws -> (Data, HTTPURLResponse) {
        var request = request
        request.setValue(sessionId, forHTTPHeaderField: "X-SessionId")
        request.setValue("others", forHTTPHeaderField: "X-Session-Type")
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, http)
    }

    private static func performLogin(baseURL: URL, credentials: PlayerLoginRequest, session: URLSession)
        async throws -> PlayerLoginResponse
    {
        var request = URLRequest(url: baseURL.appendingPathComponent("v1/player/legislation/login"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(credentials)
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            throw status == 403
                ? AuthenticationError.invalidCredentials : AuthenticationError.loginFailed(status: status)
        }
        guard let login = try? JSONDecoder().decode(PlayerLoginResponse.self, from: data) else {
            throw AuthenticationError.malformedResponse
        }
        return login
    }
}
