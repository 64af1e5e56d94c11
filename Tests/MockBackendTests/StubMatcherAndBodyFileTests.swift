import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// The WireMock fields real mapping directories use beyond the common subset:
/// `bodyFileName` (from the root's `__files`, and nowhere else), `urlPathTemplate` with
/// `pathParameters`, `matchesJsonPath`, and `or` / `and` matchers.
@Suite("Stub mappings: body files, path templates, JSONPath and or/and matchers")
struct StubMatcherAndBodyFileTests {
    /// A server whose `--mappings` is the `mappings/` (empty) of a WireMock root whose
    /// `__files/` has a body, a template, and a link to a file no mapping may reach.
    private static func withRootServer(_ body: (RunningServer) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("root-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/mappings", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/__files/orders", withIntermediateDirectories: true)
        try #"{"id": 1, "status": "shipped"}"#.write(
            toFile: root + "/__files/orders/one.json", atomically: true, encoding: .utf8)
        try #"{"id": "{{request.path.orderId}}"}"#.write(
            toFile: root + "/__files/templated.json", atomically: true, encoding: .utf8)
        try "secret".write(toFile: root + "/secret.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: root + "/__files/link.txt", withDestinationPath: root + "/secret.txt")
        var configuration = MockBackendConfiguration.forTesting()
        configuration.mappingsDirectory = root + "/mappings"
        try await withRunningServer(configuration, body)
    }

    @Test func aBodyFileIsReadFromTheRootsFilesDirectory() async throws {
        try await Self.withRootServer { server in
            let added = try await server.request(
                "POST", "/__admin/mappings",
                body:
                    #"{"request": {"urlPath": "/orders/1"}, "response": {"bodyFileName": "orders/one.json", "headers": {"Content-Type": "application/json"}}}"#
            )
            #expect(added.status == 201, "\(added.text)")
            #expect(try await server.request("GET", "/orders/1").text == #"{"id": 1, "status": "shipped"}"#)
            // A body file is a template like a body.
            _ = try await server.request(
                "POST", "/__admin/mappings",
                body:
                    #"{"request": {"urlPathTemplate": "/orders/{orderId}/summary"}, "response": {"bodyFileName": "templated.json", "transformers": ["response-template"]}}"#
            )
            #expect(try await server.request("GET", "/orders/77/summary").text == #"{"id": "77"}"#)
        }
    }

    @Test(
        arguments: [
            ("../secret.txt", "must be a path inside __files, without '..' or a leading '/'"),
            ("/etc/passwd", "must be a path inside __files"),
            ("orders/../../secret.txt", "must be a path inside __files"),
            ("link.txt", "names link.txt, which leads out of"),
            ("missing.json", "names missing.json, which is not a file in"),
            ("orders", "names orders, which is not a file in"),
            ("{{request.path}}.json", "is a template; mockbackend reads only the body file a mapping names as it is"),
        ])
    func aBodyFileOutsideFilesIsRefused(_ name: String, _ reason: String) async throws {
        try await Self.withRootServer { server in
            let refused = try await server.request(
                "POST", "/__admin/mappings",
                body: #"{"request": {"urlPath": "/x"}, "response": {"bodyFileName": "\#(name)"}}"#)
            #expect(refused.status == 400)
            #expect(refused.text.contains("response.bodyFileName \(reason)"), "\(refused.text)")
            #expect(!refused.text.contains("secret\""))
        }
    }

    @Test func withoutAFilesDirectoryABodyFileIsRefused() async throws {
        try await withRunningServer { server in
            let refused = try await server.request(
                "POST", "/__admin/mappings",
                body: #"{"request": {"urlPath": "/x"}, "response": {"bodyFileName": "a.json"}}"#)
            #expect(refused.status == 400)
            #expect(refused.text.contains("response.bodyFileName needs a __files directory"), "\(refused.text)")
        }
    }

    @Test func aPathTemplateMatchesWholeSegmentsAndItsParameters() async throws {
        try await withRunningServer { server in
            let added = try await server.request(
                "POST", "/__admin/mappings",
                body: #"""
                    {"request": {"method": "GET", "urlPathTemplate": "/contacts/{contactId}/addresses/{addressId}",
                                 "pathParameters": {"contactId": {"matches": "[0-9]+"}}},
                     "response": {"body": "{{request.path.contactId}}:{{request.path.addressId}}", "transformers": ["response-template"]}}
                    """#)
            #expect(added.status == 201, "\(added.text)")
            #expect(try await server.request("GET", "/contacts/12/addresses/a%20b").text == "12:a b")
            #expect(try await server.request("GET", "/contacts/x/addresses/1").status == 404)
            #expect(try await server.request("GET", "/contacts/12/addresses").status == 404)
            #expect(try await server.request("GET", "/contacts/12/addresses/").status == 404)
            #expect(try await server.request("GET", "/contacts/12/addresses/1/more").status == 404)
            for (mapping, reason) in [
                (#""urlPathTemplate": "contacts/{id}""#, "request.urlPathTemplate must start with '/'"),
                (
                    #""urlPathTemplate": "/a/x{id}""#,
                    "request.urlPathTemplate has 'x{id}': a variable is a whole segment"
                ),
                (#""urlPathTemplate": "/a/{i d}""#, "request.urlPathTemplate has the variable {i d}"),
                (
                    #""urlPath": "/a", "pathParameters": {"id": {"equalTo": "1"}}"#,
                    "request.pathParameters needs urlPathTemplate"
                ),
                (
                    #""urlPathTemplate": "/a/{id}", "pathParameters": {"other": {"equalTo": "1"}}"#,
                    "request.pathParameters.other is no variable of /a/{id}"
                ),
                (#""urlPath": "/a", "urlPathTemplate": "/a/{id}""#, "has more than one of url/urlPath"),
            ] {
                let refused = try await server.request(
                    "POST", "/__admin/mappings", body: #"{"request": {\#(mapping)}, "response": {}}"#)
                #expect(refused.status == 400)
                #expect(refused.text.contains(reason), "\(refused.text)")
            }
        }
    }

    @Test func jsonPathAndOrAndMatchers() async throws {
        try await withRunningServer { server in
            for mapping in [
                #"{"request": {"urlPath": "/adults", "bodyPatterns": [{"matchesJsonPath": "$[?(@.['age'] =~ /[2-9][0-9]/)]"}]}, "response": {"body": "adult"}}"#,
                #"{"request": {"urlPath": "/named", "bodyPatterns": [{"matchesJsonPath": "$.name"}, {"matchesJsonPath": {"expression": "$.tags[*]", "contains": "vip"}}]}, "response": {"body": "vip"}}"#,
                #"{"request": {"urlPath": "/codes", "queryParameters": {"code": {"or": [{"equalTo": "A"}, {"matches": "B[0-9]"}]}}}, "response": {"body": "code"}}"#,
                #"{"request": {"urlPath": "/both", "bodyPatterns": [{"and": [{"contains": "x"}, {"or": [{"contains": "y"}, {"matchesJsonPath": "$[?(@.shadow == true)]"}]}]}]}, "response": {"body": "both"}}"#,
            ] {
                let added = try await server.request("POST", "/__admin/mappings", body: mapping)
                #expect(added.status == 201, "\(added.text)")
            }
            #expect(try await server.request("POST", "/adults", body: #"{"age": "42"}"#).text == "adult")
            #expect(try await server.request("POST", "/adults", body: #"{"age": "12"}"#).status == 404)
            #expect(try await server.request("POST", "/adults", body: "not json").status == 404)
            #expect(
                try await server.request("POST", "/named", body: #"{"name": "a", "tags": ["new", "vip"]}"#).text
                    == "vip")
            #expect(try await server.request("POST", "/named", body: #"{"name": "a", "tags": ["new"]}"#).status == 404)
            #expect(try await server.request("POST", "/named", body: #"{"tags": ["vip"]}"#).status == 404)
            #expect(try await server.request("GET", "/codes?code=A").text == "code")
            #expect(try await server.request("GET", "/codes?code=B7").text == "code")
            #expect(try await server.request("GET", "/codes?code=C").status == 404)
            #expect(try await server.request("POST", "/both", body: "xy").text == "both")
            #expect(try await server.request("POST", "/both", body: #"{"x": 1, "shadow": true}"#).text == "both")
            #expect(try await server.request("POST", "/both", body: #"{"x": 1, "shadow": false}"#).status == 404)
            for (mapping, reason) in [
                (
                    #"{"bodyPatterns": [{"matchesJsonPath": "$.a["}]}"#,
                    "request.bodyPatterns[0].matchesJsonPath has a JSONPath '[' that is never closed"
                ),
                (
                    #"{"bodyPatterns": [{"matchesJsonPath": {"contains": "x"}}]}"#,
                    "matchesJsonPath.expression is required"
                ),
                (#"{"bodyPatterns": [{"or": []}]}"#, "request.bodyPatterns[0].or must not be empty"),
                (
                    #"{"headers": {"A": {"and": [{"equalTo": "1"}, {"nope": 1}]}}}"#,
                    "request.headers.A.and[1].nope is not a known field"
                ),
            ] {
                let refused = try await server.request(
                    "POST", "/__admin/mappings", body: #"{"request": \#(mapping), "response": {}}"#)
                #expect(refused.status == 400)
                #expect(refused.text.contains(reason), "\(refused.text)")
            }
        }
    }
}
