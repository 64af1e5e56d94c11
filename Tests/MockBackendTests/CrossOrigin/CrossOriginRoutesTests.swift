import Foundation
import MockBackend
import MockBackendHTTP
import TestSupport
import Testing

/// The app as a browser meets it: CORS on every route outside `/__admin` (routes, stubs,
/// errors, streams), the admin API closed to other origins, and hosts the server does not
/// answer to refused.
@Suite("CORS, admin origins and hosts")
struct CrossOriginRoutesTests {
    static let page = "http://localhost:3000"

    @Test func aPreflightOnAnyRouteIsAnsweredForTheOrigin() async throws {
        try await withInMemoryApp { app in
            let preflight = try await app.request(
                "OPTIONS", "/api/auth/login",
                headers: [
                    "Origin": Self.page, "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "content-type, authorization",
                ])
            #expect(preflight.status == 204)
            #expect(preflight.headers["Access-Control-Allow-Origin"] == Self.page)
            #expect(preflight.headers["Access-Control-Allow-Credentials"] == "true")
            #expect(preflight.headers["Access-Control-Allow-Methods"] == "POST")
            #expect(preflight.headers["Access-Control-Allow-Headers"] == "content-type, authorization")
            // A plain OPTIONS is still the route's own answer.
            let plain = try await app.request("OPTIONS", "/api/auth/login")
            #expect(plain.status == 204)
            #expect(plain.headers["Allow"] != nil)
            #expect(plain.headers["Access-Control-Allow-Origin"] == nil)
        }
    }

    @Test func answersErrorsAndStreamsCarryTheHeaders() async throws {
        try await withInMemoryApp { app in
            let headers = ["Origin": Self.page]
            let login = try await app.request(
                "POST", "/v1/player/legislation/login", headers: headers,
                body: #"{"username":"demo","password":"demo1234"}"#)
            #expect(login.status == 200)
            #expect(login.headers["Access-Control-Allow-Origin"] == Self.page)
            #expect(login.headers["Access-Control-Expose-Headers"]?.contains("X-SessionId") == true)
            let missing = try await app.request("GET", "/nowhere", headers: headers)
            #expect(missing.status == 404)
            #expect(missing.headers["Access-Control-Allow-Origin"] == Self.page)
            let stream = app.answer("GET", "/sse/channels/cors", headers: headers)
            #expect(stream.stream != nil)
            #expect(stream.headers["Access-Control-Allow-Origin"] == Self.page)
            #expect(stream.headers["Access-Control-Allow-Credentials"] == "true")
        }
    }

    @Test func stubsAndFaultsCarryTheHeadersToo() async throws {
        try await withInMemoryApp { app in
            let stub = try await app.request(
                "POST", "/__admin/mappings",
                body: #"{"request":{"urlPath":"/stubbed"},"response":{"status":418,"body":"tea"}}"#)
            #expect(stub.status == 201)
            let stubbed = try await app.request("GET", "/stubbed", headers: ["Origin": Self.page])
            #expect(stubbed.status == 418)
            #expect(stubbed.headers["Access-Control-Allow-Origin"] == Self.page)
            let fault = try await app.request(
                "POST", "/__admin/faults", body: #"{"match":{"path":"/health"},"fault":{"kind":"status","status":503}}"#
            )
            #expect(fault.status == 201)
            let faulted = try await app.request("GET", "/health", headers: ["Origin": Self.page])
            #expect(faulted.status == 503)
            #expect(faulted.headers["Access-Control-Allow-Origin"] == Self.page)
        }
    }

    @Test func withCorsOffNothingIsAdded() async throws {
        var configuration = MockBackendConfiguration()
        configuration.cors = CORSPolicy(mode: .off)
        try await withInMemoryApp(configuration) { app in
            let answer = try await app.request("GET", "/health", headers: ["Origin": Self.page])
            #expect(answer.status == 200)
            #expect(answer.headers["Access-Control-Allow-Origin"] == nil)
            let preflight = try await app.request(
                "OPTIONS", "/health", headers: ["Origin": Self.page, "Access-Control-Request-Method": "GET"])
            #expect(preflight.headers["Access-Control-Allow-Origin"] == nil)
        }
    }

    @Test func listedOriginsOnly() async throws {
        var configuration = MockBackendConfiguration()
        configuration.cors = try #require(CORSPolicy(argument: Self.page))
        try await withInMemoryApp(configuration) { app in
            let allowed = try await app.request("GET", "/health", headers: ["Origin": Self.page])
            #expect(allowed.headers["Access-Control-Allow-Origin"] == Self.page)
            let other = try await app.request("GET", "/health", headers: ["Origin": "http://localhost:4000"])
            #expect(other.status == 200)
            #expect(other.headers["Access-Control-Allow-Origin"] == nil)
            // A named origin may use the admin API, with CORS.
            let admin = try await app.request("GET", "/__admin/state", headers: ["Origin": Self.page])
            #expect(admin.status == 200)
            #expect(admin.headers["Access-Control-Allow-Origin"] == Self.page)
        }
    }

    /// A page of another origin cannot drive the admin API: not with JSON, not with a form's
    /// content type, not with `Origin: null`, not through a preflight. The server's own
    /// origin (the dashboard) can.
    @Test func theAdminAPIRefusesOtherOrigins() async throws {
        try await withInMemoryApp { app in
            for (origin, contentType) in [
                (Self.page, "application/json"), (Self.page, "text/plain"),
                ("null", "application/x-www-form-urlencoded"), ("http://127.0.0.1:9", "application/json"),
            ] {
                let refused = try await app.request(
                    "POST", "/__admin/mappings",
                    headers: ["Origin": origin, "Content-Type": contentType],
                    body: #"{"request":{"urlPath":"/owned"},"response":{"status":200}}"#)
                #expect(refused.status == 403, "\(origin) \(contentType)")
                #expect(refused.text.contains(#""code":"CROSS_ORIGIN_ADMIN""#), "\(refused.text)")
                #expect(refused.headers["Access-Control-Allow-Origin"] == nil)
            }
            let preflight = try await app.request(
                "OPTIONS", "/__admin/reset", headers: ["Origin": Self.page, "Access-Control-Request-Method": "POST"])
            #expect(preflight.status == 403)
            #expect(preflight.text.contains(#""code":"CROSS_ORIGIN_ADMIN""#))
            let mappings = try await app.request("GET", "/__admin/mappings")
            #expect(mappings.text.contains(#""mappings":[]"#), "\(mappings.text)")

            let own = try await app.request(
                "POST", "/__admin/reset", headers: ["Origin": "http://127.0.0.1", "Host": "127.0.0.1"], body: "{}")
            #expect(own.status == 200, "\(own.text)")
            let noOrigin = try await app.request("GET", "/__admin/state")
            #expect(noOrigin.status == 200)
        }
    }

    @Test func hostsTheServerDoesNotAnswerToAreRefused() async throws {
        try await withInMemoryApp { app in
            for path in ["/health", "/__admin/state", "/api/auth/login"] {
                let refused = try await app.request("GET", path, headers: ["Host": "rebind.evil.example:8080"])
                #expect(refused.status == 421, "\(path)")
                #expect(refused.text.contains(#""code":"HOST_NOT_ALLOWED""#))
            }
            for host in ["localhost:8080", "127.0.0.1:8080", "10.0.2.2:8080", "mockbackend:8080"] {
                #expect(try await app.request("GET", "/health", headers: ["Host": host]).status == 200, "\(host)")
            }
            // Not ASCII: refused, even where Unicode lower-casing would make it a name answered.
            for host in ["bücher.localhost", "\u{212A}:8080"] {
                let refused = try await app.request("GET", "/health", headers: ["Host": host])
                #expect(refused.status == 421, "\(host)")
            }
        }
        var configuration = MockBackendConfiguration()
        configuration.allowedHosts = [".evil.example"]
        try await withInMemoryApp(configuration) { app in
            let allowed = try await app.request("GET", "/health", headers: ["Host": "rebind.evil.example"])
            #expect(allowed.status == 200)
        }
    }
}
