import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import Testing

@Suite("Health, OpenAPI document and dashboard")
struct HealthAndDocumentTests {
    @Test func healthIsOK() async throws {
        try await withRunningServer { server in
            let response = try server.connect().get("/health")
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
            let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            #expect(body?["status"] as? String == "ok")
        }
    }

    @Test func adminHealthReportsVersionAndUptime() async throws {
        try await withRunningServer { server in
            let response = try server.connect().get("/__admin/health")
            #expect(response.status == 200)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(body["status"] as? String == "ok")
            #expect(body["version"] as? String == MockBackendVersion.current)
            #expect((body["uptimeSeconds"] as? Double ?? -1) >= 0)
        }
    }

    @Test func servesTheOpenAPIDocumentFromDisk() async throws {
        try await withRunningServer { server in
            let response = try server.connect().get("/openapi.yaml")
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "application/yaml")
            let onDisk = try String(contentsOfFile: PackageRoot.path + "/openapi/openapi.yaml", encoding: .utf8)
            #expect(response.text == onDisk)
            #expect(response.text.hasPrefix("openapi: 3.1"))
        }
    }

    @Test func missingOpenAPIDocumentIsAProblem() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.openAPIDocument = "/nonexistent/openapi.yaml"
        try await withRunningServer(configuration) { server in
            let response = try server.connect().get("/openapi.yaml")
            #expect(response.status == 404)
            #expect(response.text.contains("OPENAPI_NOT_FOUND"))
        }
    }

    @Test func servesTheDashboardAtRoot() async throws {
        try await withRunningServer { server in
            let response = try server.connect().get("/")
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(response.text.contains("<title>mockbackend</title>"))
        }
    }

    /// Every route the router knows is described in the OpenAPI document.
    @Test func everyRouteIsInTheOpenAPIDocument() async throws {
        let document = try String(contentsOfFile: PackageRoot.path + "/openapi/openapi.yaml", encoding: .utf8)
        let app = MockBackendApp(configuration: .forTesting())
        for route in app.router.routes {
            #expect(document.contains("\n  \(route.pattern):\n"), "\(route.method) \(route.pattern) is not documented")
            #expect(document.contains("\n    \(route.method.lowercased()):\n"))
        }
    }

    @Test func stopsTheServerWhenTheBodyThrows() async throws {
        struct Expected: Error {}
        let connection = LockedValue<RawHTTPClient?>(nil)
        await #expect(throws: Expected.self) {
            try await withRunningServer { server in
                let client = try server.connect()
                #expect(try client.get("/health").status == 200)
                connection.withLock { $0 = client }
                throw Expected()
            }
        }
        // The server that held the connection is gone, so the connection has ended.
        let client = try #require(connection.current)
        #expect(client.waitForClose(timeout: .seconds(2)) == .fin)
    }
}
