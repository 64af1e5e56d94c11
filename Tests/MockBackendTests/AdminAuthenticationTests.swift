import Foundation
import MockBackend
import MockBackendTesting
import TestSupport
import Testing

@Suite("Admin token")
struct AdminAuthenticationTests {
    static let token = "s3cret-admin"

    static func guarded() -> MockBackendConfiguration {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.adminToken = token
        return configuration
    }

    /// The answer to `GET /__admin/events`: its status, and whether it is the feed's stream.
    private static func feed(_ server: InMemoryApp, query: String = "", headers: [String: String] = [:])
        -> (status: Int, isStream: Bool)
    {
        let answer = server.answer("GET", "/__admin/events\(query)", headers: headers)
        return (
            answer.status, answer.stream != nil && answer.headers["Content-Type"]?.contains("text/event-stream") == true
        )
    }

    @Test func adminRoutesAskForTheBearerToken() async throws {
        try await withInMemoryApp(Self.guarded()) { server in
            let missing = try await server.request("GET", "/__admin/sessions")
            #expect(missing.status == 401)
            #expect(missing.headers["WWW-Authenticate"] == #"Bearer realm="mockbackend admin""#)
            #expect(missing.text.contains(#""code":"ADMIN_UNAUTHORIZED""#))

            let wrong = try await server.request(
                "POST", "/__admin/users/7000001/balance", headers: ["Authorization": "Bearer nope"],
                body: #"{"amount":5}"#)
            #expect(wrong.status == 401)
            #expect(wrong.headers["WWW-Authenticate"]?.contains(#"error="invalid_token""#) == true)
            #expect(try await server.request("GET", "/__admin/users").status == 401)
            // An empty first segment reaches the same route, so it must meet the same check.
            #expect(try await server.request("GET", "//__admin/sessions").status == 401)

            let right = try await server.request(
                "GET", "/__admin/sessions", headers: ["Authorization": "bearer \(Self.token)"])
            #expect(right.status == 200)
        }
    }

    @Test func theQueryTokenIsTakenOnTheFeedOnly() async throws {
        try await withInMemoryApp(Self.guarded()) { server in
            #expect(Self.feed(server).status == 401)
            #expect(Self.feed(server, query: "?access_token=wrong").status == 401)
            let byQuery = Self.feed(server, query: "?access_token=\(Self.token)")
            #expect(byQuery.status == 200)
            #expect(byQuery.isStream)
            let byHeader = Self.feed(server, headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(byHeader.status == 200)

            // Anywhere else the query parameter counts for nothing.
            let elsewhere = try await server.request("GET", "/__admin/sessions?access_token=\(Self.token)")
            #expect(elsewhere.status == 401)
        }
    }

    @Test func healthTheDashboardAndThePublicAPIsStayOpen() async throws {
        try await withInMemoryApp(Self.guarded()) { server in
            #expect(try await server.request("GET", "/__admin/health").status == 200)
            // Open, so it says "no TLS" rather than "unauthorized".
            #expect(try await server.request("GET", "/__admin/tls/cert.pem").status == 404)
            #expect(try await server.request("GET", "/__admin/tls/cert.pem/x").status == 401)
            #expect(try await server.request("GET", "/").status == 200)
            #expect(try await server.request("GET", "/health").status == 200)
            let login = try await server.request(
                "POST", "/v1/player/legislation/login", body: #"{"username":"demo","password":"demo1234"}"#)
            #expect(login.status == 200)
        }
    }

    @Test func withoutATokenTheAdminAPIIsOpen() async throws {
        try await withInMemoryApp { server in
            let sessions = try await server.request("GET", "/__admin/sessions")
            #expect(sessions.status == 200)
            #expect(Self.feed(server) == (200, true))
        }
    }
}
