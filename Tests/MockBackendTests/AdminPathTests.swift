import Foundation
import MockBackend
import MockBackendTesting
import TestSupport
import Testing

/// Targets the router reads as under `/__admin`: empty segments are skipped, and a dot
/// segment is a segment like any other (the target is routed as sent, RFC 3986 §5.2.4 is
/// not applied), so `/__admin/../x` stays under `/__admin`.
private let adminTargets = [
    "/__admin/faults", "//__admin/faults", "/__admin//faults/", "/__admin", "/__admin/", "/__admin/../x",
    "/__admin/no-such-route",
]

/// Targets that only look like admin paths: the router compares segments as sent, case and
/// percent-encoding included, so none of these reaches an admin route.
private let publicTargets = [
    "/__administrator", "/__admin%2Ffaults", "/%2F__admin/faults", "/%5F_admin/faults", "/__ADMIN/faults",
    "/x/../__admin/faults", "/./__admin/faults",
]

private func journaledTargets(_ server: some AppUnderTest) async throws -> [String] {
    let list = try await server.request("GET", "/__admin/requests")
    return try JSONDecoder().decode([JournaledRequest].self, from: Data(list.body)).map(\.target)
}

@Suite("Admin paths: one answer to \"is this the admin API?\"")
struct AdminPathTests {
    /// `AdminAPI.contains(path:)` gives the router's answer: the admin group owns exactly
    /// the paths it names, and every admin route is in that group.
    @Test func thePredicateIsTheRoutersAnswer() {
        let router = MockBackendApp(configuration: .forTesting()).router
        for target in adminTargets {
            #expect(AdminAPI.contains(path: target), "\(target)")
            #expect(router.group(containing: target) == AdminAPI.prefix, "\(target)")
        }
        for target in publicTargets + ["/", "", "%2F__admin", "/health", "/__admi", "/_admin", "/v1/__admin"] {
            #expect(!AdminAPI.contains(path: target), "\(target)")
            #expect(router.group(containing: target) == nil, "\(target)")
        }
        for route in router.routes {
            let admin = route.pattern.description.hasPrefix("/__admin/")
            #expect((route.group == AdminAPI.prefix) == admin, "\(route.method) \(route.pattern)")
        }
        #expect(router.routes.filter { $0.group == AdminAPI.prefix }.count > 40)
    }

    @Test func aFaultOnEveryPathNeverFiresOnAnAdminRequest() async throws {
        try await withInMemoryApp { server in
            let rule = #"{"match":{"path":"/**"},"fault":{"kind":"status","status":418}}"#
            #expect(try await server.request("POST", "/__admin/faults", body: rule).status == 201)
            for target in adminTargets {
                let response = try await server.request("GET", target)
                #expect(response.status != 418, "GET \(target) was faulted")
            }
            let listed = try await server.request("GET", "//__admin/faults")
            #expect(listed.status == 200)
            #expect(listed.text.contains(#""kind":"status""#))
            for target in publicTargets {
                #expect(try await server.request("GET", target).status == 418, "GET \(target) was not faulted")
            }
        }
    }

    @Test func aStubForEveryPathNeverAnswersAnAdminRequest() async throws {
        try await withInMemoryApp { server in
            let mapping =
                #"{"priority": 1, "request": {"method": "ANY", "urlPathPattern": ".*"}, "response": {"body": "stubbed"}}"#
            let created = try await server.request("POST", "/__admin/mappings", body: mapping)
            #expect(created.status == 201)
            for target in adminTargets {
                #expect(try await server.request("GET", target).text != "stubbed", "GET \(target) was stubbed")
            }
            for target in publicTargets {
                #expect(try await server.request("GET", target).text == "stubbed", "GET \(target) was not stubbed")
            }
        }
    }

    @Test func onlyPublicRequestsAreJournaled() async throws {
        try await withInMemoryApp { server in
            for target in adminTargets + publicTargets { _ = try await server.request("GET", target) }
            #expect(try await journaledTargets(server) == publicTargets.reversed())
        }
    }

    @Test func everyAdminPathAsksForTheTokenAndNoOtherDoes() async throws {
        try await withInMemoryApp(AdminAuthenticationTests.guarded()) { server async throws in
            for target in adminTargets {
                #expect(try await server.request("GET", target).status == 401, "GET \(target) was let through")
                #expect(try await server.request("OPTIONS", target).status == 401, "OPTIONS \(target)")
            }
            for target in publicTargets {
                #expect(try await server.request("GET", target).status != 401, "GET \(target) asked for the token")
            }
        }
    }
}
