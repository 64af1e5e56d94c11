import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

@Suite("Health, OpenAPI document and dashboard")
struct HealthAndDocumentTests {
    @Test func healthIsOK() async throws {
        try await withInMemoryApp { server in
            let response = try await server.get("/health")
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
            let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            #expect(body?["status"] as? String == "ok")
        }
    }

    @Test func adminHealthReportsVersionAndUptime() async throws {
        try await withInMemoryApp { server in
            let response = try await server.get("/__admin/health")
            #expect(response.status == 200)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(body["status"] as? String == "ok")
            #expect(body["version"] as? String == MockBackendVersion.current)
            #expect((body["uptimeSeconds"] as? Double ?? -1) >= 0)
        }
    }

    /// With `--admin-token` the document declares what the server does: it is served as it is.
    @Test func withATokenServesTheOpenAPIDocumentAsItIsOnDisk() async throws {
        try await withInMemoryApp(AdminAuthenticationTests.guarded()) { server in
            let response = try await server.get("/openapi.yaml")
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "application/yaml")
            let onDisk = try String(contentsOfFile: PackageRoot.path + "/openapi/openapi.yaml", encoding: .utf8)
            #expect(response.text == onDisk)
            #expect(response.text.hasPrefix("openapi: 3.1"))
        }
    }

    /// Without `--admin-token` the admin API asks for nothing, so the served document
    /// declares its operations open (`security: []`) and says why; the rest is as on disk.
    @Test func withoutATokenTheServedDocumentDeclaresTheAdminAPIOpen() async throws {
        try await withInMemoryApp { server in
            let response = try await server.get("/openapi.yaml")
            #expect(response.status == 200)
            let onDisk = try String(contentsOfFile: PackageRoot.path + "/openapi/openapi.yaml", encoding: .utf8)
            // The `security` keys of the operations, one flow sequence a line.
            func security(_ document: String) -> [Substring] {
                document.split(separator: "\n").filter { $0.drop { $0 == " " }.hasPrefix("security:") }
            }
            let served = security(response.text)
            let original = security(onDisk)
            let admin = original.filter { $0.contains("adminBearer") }
            #expect(admin.count > 40)
            #expect(!served.contains { $0.contains("admin") })
            #expect(served.filter { $0.hasSuffix("security: []") }.count == admin.count)
            // Every other security requirement is kept, in order.
            #expect(served.filter { !$0.hasSuffix("security: []") } == original.filter { !$0.contains("admin") })
            #expect(response.text.contains("This server was started without `--admin-token`"))
            #expect(response.text.hasPrefix("openapi: 3.1"))
        }
    }

    /// The document is read on each request, so an edit shows without a restart.
    @Test func anEditedDocumentIsServedWithoutARestart() async throws {
        let path = NSTemporaryDirectory() + "openapi-\(UUID().uuidString).yaml"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "openapi: 3.1.0\n# first\n".write(toFile: path, atomically: true, encoding: .utf8)
        var configuration = MockBackendConfiguration.forTesting()
        configuration.openAPIDocument = path
        try await withInMemoryApp(configuration) { server in
            #expect(try await server.get("/openapi.yaml").text.contains("# first"))
            try "openapi: 3.1.0\n# second\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try await server.get("/openapi.yaml").text.contains("# second"))
        }
    }

    @Test func missingOpenAPIDocumentIsAProblem() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.openAPIDocument = "/nonexistent/openapi.yaml"
        try await withInMemoryApp(configuration) { server in
            let response = try await server.get("/openapi.yaml")
            #expect(response.status == 404)
            #expect(response.text.contains("OPENAPI_NOT_FOUND"))
        }
    }

    @Test func servesTheDashboardAtRoot() async throws {
        try await withInMemoryApp { server in
            let response = try await server.get("/")
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(response.text.contains("<title>mockbackend</title>"))
        }
    }

    /// The router's routes and the OpenAPI document's operations are the same set.
    @Test func routesAndTheOpenAPIDocumentAgree() throws {
        let document = try String(contentsOfFile: PackageRoot.path + "/openapi/openapi.yaml", encoding: .utf8)
        var documented = Set<String>()
        var path: String?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if !line.hasPrefix("  ") {
                path = nil
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     ") {
                let method = line.dropFirst(4).prefix { $0 != ":" }
                if ["get", "put", "post", "delete", "patch", "head", "options"].contains(String(method)) {
                    documented.insert("\(method.uppercased()) \(path)")
                }
            }
        }
        let app = MockBackendApp(configuration: .forTesting())
        let routed = Set(
            app.router.routes.map {
                "\($0.method) \($0.pattern.description.replacingOccurrences(of: "...}", with: "}"))"
            })
        #expect(routed.subtracting(documented).isEmpty, "routes missing from the document")
        #expect(documented.subtracting(routed).isEmpty, "documented routes the server lacks")
        #expect(routed.count > 10)
    }
}
