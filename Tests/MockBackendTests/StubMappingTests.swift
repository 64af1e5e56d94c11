import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

private let fixtures = PackageRoot.path + "/Tests/MockBackendTests/Fixtures/mappings"

/// Adds a mapping, expects 201, and returns its id.
@discardableResult
private func stub(_ server: some AppUnderTest, _ json: String) async throws -> String {
    let response = try await server.request("POST", "/__admin/mappings", body: json)
    #expect(response.status == 201, "\(response.text)")
    return try JSONDecoder().decode(MappingEntry.self, from: Data(response.body)).id
}

private func list(_ server: some AppUnderTest, _ query: String = "") async throws -> MappingList {
    let response = try await server.request("GET", "/__admin/mappings" + query)
    return try JSONDecoder().decode(MappingList.self, from: Data(response.body))
}

private struct MappingEntry: Decodable {
    var id: String
    var uuid: String
    var name: String?
    var priority: Int?
}

private struct MappingList: Decodable {
    struct Meta: Decodable { var total: Int }
    var mappings: [MappingEntry]
    var meta: Meta
}

@Suite("Stub mappings: matching and responses")
struct StubMappingTests {
    @Test func aStubAnswersWithItsStatusHeadersAndBody() async throws {
        try await withRunningServer { server in
            let created = try await server.request(
                "POST", "/__admin/mappings",
                body: #"""
                    {"name": "hello", "request": {"method": "GET", "url": "/api/hello?x=1"},
                     "response": {"status": 202, "headers": {"X-Thing": "a", "Set-Cookie": ["a=1", "b=2"]},
                                  "body": "hi"}}
                    """#)
            #expect(created.status == 201)
            let entry = try JSONDecoder().decode(MappingEntry.self, from: Data(created.body))
            #expect(entry.id == entry.uuid)
            #expect(
                entry.id.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil)
            #expect(entry.name == "hello")
            #expect(created.headers["Location"] == "/__admin/mappings/\(entry.id)")

            let hello = try await server.request("GET", "/api/hello?x=1")
            #expect(hello.status == 202)
            #expect(hello.headers["X-Thing"] == "a")
            #expect(hello.headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
            #expect(hello.headers["Content-Type"] == nil)
            #expect(hello.text == "hi")
            #expect(try await server.request("GET", "/api/hello?x=2").status == 404)
            #expect(try await server.request("GET", "/api/hello").status == 404)
            #expect(try await server.request("POST", "/api/hello?x=1").status == 404)
        }
    }

    @Test func urlPathIgnoresTheQueryAndPatternsMatchTheWholeOfIt() async throws {
        try await withRunningServer { server in
            try await stub(server, #"{"request": {"urlPath": "/a/b"}, "response": {"body": "path"}}"#)
            try await stub(server, #"{"request": {"urlPathPattern": "/items/[0-9]+"}, "response": {"body": "item"}}"#)
            try await stub(server, #"{"request": {"urlPattern": "/search\\?q=[a-z]+"}, "response": {"body": "q"}}"#)
            #expect(try await server.request("GET", "/a/b?z=1").text == "path")
            #expect(try await server.request("GET", "/a/b").text == "path")
            #expect(try await server.request("GET", "/a/b/c").status == 404)
            #expect(try await server.request("GET", "/items/12").text == "item")
            #expect(try await server.request("GET", "/items/12?page=2").text == "item")
            #expect(try await server.request("GET", "/items/12/x").status == 404)
            #expect(try await server.request("GET", "/x/items/12").status == 404)
            #expect(try await server.request("GET", "/search?q=abc").text == "q")
            #expect(try await server.request("GET", "/search?q=abc&x=1").status == 404)
            #expect(try await server.request("GET", "/search").status == 404)
        }
    }

    @Test func methodANYOrNoneMatchesEveryMethod() async throws {
        try await withRunningServer { server in
            try await stub(server, #"{"request": {"method": "ANY", "urlPath": "/any"}, "response": {"body": "any"}}"#)
            try await stub(server, #"{"request": {"urlPath": "/none"}, "response": {"body": "none"}}"#)
            try await stub(server, #"{"request": {"method": "PATCH", "urlPath": "/patch"}, "response": {"body": "p"}}"#)
            for method in ["GET", "POST", "DELETE", "PATCH"] {
                #expect(try await server.request(method, "/any").text == "any")
                #expect(try await server.request(method, "/none").text == "none")
            }
            #expect(try await server.request("PATCH", "/patch").text == "p")
            #expect(try await server.request("GET", "/patch").status == 404)
        }
    }

    @Test func headersMatchByEqualToContainsMatchesAndAbsent() async throws {
        try await withRunningServer { server in
            try await stub(
                server,
                #"""
                {"request": {"urlPath": "/h", "headers": {
                    "x-api-version": {"equalTo": "2"}, "Accept": {"contains": "json"},
                    "X-Trace": {"matches": "[a-f0-9]{8}"}, "X-Debug": {"absent": true},
                    "X-Mode": {"equalTo": "FAST", "caseInsensitive": true}}},
                 "response": {"body": "matched"}}
                """#)
            let good = [
                "X-API-Version": "2", "Accept": "application/json", "X-Trace": "deadbeef", "X-Mode": "fast",
            ]
            #expect(try await server.request("GET", "/h", headers: good).text == "matched")
            var variants: [[String: String]] = []
            variants.append(good.merging(["X-API-Version": "3"]) { $1 })
            variants.append(good.merging(["Accept": "text/html"]) { $1 })
            variants.append(good.merging(["X-Trace": "deadbeef0"]) { $1 })
            variants.append(good.merging(["X-Debug": "1"]) { $1 })
            variants.append(good.merging(["X-Mode": "slow"]) { $1 })
            variants.append(good.filter { $0.key != "Accept" })
            for headers in variants {
                #expect(try await server.request("GET", "/h", headers: headers).status == 404, "\(headers)")
            }
        }
    }

    @Test func queryParametersMatchDecodedValues() async throws {
        try await withRunningServer { server in
            try await stub(
                server,
                #"""
                {"request": {"urlPath": "/q", "queryParameters": {"q": {"equalTo": "hello world"},
                  "page": {"matches": "[0-9]+"}, "debug": {"absent": true}}}, "response": {"body": "found"}}
                """#)
            #expect(try await server.request("GET", "/q?q=hello%20world&page=2").text == "found")
            #expect(try await server.request("GET", "/q?page=2&q=hello+world").text == "found")
            #expect(try await server.request("GET", "/q?q=hello%20world&page=x").status == 404)
            #expect(try await server.request("GET", "/q?page=2").status == 404)
            #expect(try await server.request("GET", "/q?q=hello%20world&page=2&debug=1").status == 404)
        }
    }

    @Test func jsonBodyIsCompactJSONWithAContentTypeUnlessOneIsGiven() async throws {
        try await withRunningServer { server in
            try await stub(
                server,
                #"""
                {"request": {"urlPath": "/j"}, "response": {"jsonBody": {"b": [1, 2.5, true, null], "a": {"c": "d/e"}}}}
                """#)
            try await stub(
                server,
                #"""
                {"request": {"urlPath": "/k"},
                 "response": {"headers": {"content-type": "application/vnd.api+json"}, "jsonBody": "x"}}
                """#)
            let json = try await server.request("GET", "/j")
            #expect(json.status == 200)
            #expect(json.text == #"{"a":{"c":"d/e"},"b":[1,2.5,true,null]}"#)
            #expect(json.headers.values(for: "Content-Type") == ["application/json"])
            let custom = try await server.request("GET", "/k")
            #expect(custom.text == #""x""#)
            #expect(custom.headers.values(for: "Content-Type") == ["application/vnd.api+json"])
        }
    }

    @Test func base64BodyIsSentAsItsBytesAndFramingHeadersAreTheServers() async throws {
        try await withRunningServer { server in
            try await stub(
                server,
                #"""
                {"request": {"urlPath": "/bin"}, "response": {"base64Body": "AAEC/w==",
                 "headers": {"Content-Length": "999", "Transfer-Encoding": "chunked", "Keep-Alive": "timeout=5"}}}
                """#)
            let binary = try await server.request("GET", "/bin")
            #expect(binary.body == [0, 1, 2, 255])
            #expect(binary.headers["Content-Length"] == "4")
            #expect(binary.headers["Transfer-Encoding"] == nil)
            #expect(binary.headers["Keep-Alive"] == nil)
        }
    }

    /// The delay is long enough that no busy machine answers the other request after it,
    /// and the server stops without waiting for it.
    @Test func aFixedDelayHoldsTheHeadWithoutBlockingOtherRequests() async throws {
        try await withRunningServer { server in
            try await stub(
                server,
                #"{"request": {"urlPath": "/slow"}, "response": {"body": "late", "fixedDelayMilliseconds": 60000}}"#
            )
            let slow = try server.connect()
            try slow.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
            let health = try await server.request("GET", "/health")
            #expect(health.status == 200)
            // Answered while the delayed response still waits: nothing of it has come yet.
            _ = try? await slow.receive(timeout: .zero)
            #expect(slow.buffer.isEmpty)
        }
    }

    @Test func aFixedDelayedResponseComesAfterItsDelay() async throws {
        try await withRunningServer { server in
            try await stub(
                server,
                #"{"request": {"urlPath": "/late"}, "response": {"body": "late", "fixedDelayMilliseconds": 1000}}"#
            )
            let start = ContinuousClock.now
            let response = try await server.request("GET", "/late")
            #expect(response.text == "late")
            #expect(ContinuousClock.now - start >= .milliseconds(1000))
        }
    }
}

@Suite("Stub mappings: event streams")
struct StubEventStreamTests {
    @Test func writesEachEventAfterItsDelayThenEnds() async throws {
        // The gap must outlast a test task that a busy machine or a sanitizer holds back.
        let gap = 300 * TestTiming.scale
        try await withRunningServer { server in
            try await stub(
                server,
                #"""
                {"request": {"urlPath": "/events"}, "response": {"headers": {"X-Stub": "yes"}, "sse": {
                  "retry": 2500, "close": true, "events": [
                    {"event": "progress", "data": {"pct": 50}, "id": "1"},
                    {"data": "plain\ntext", "delayMs": \#(gap)},
                    {"event": "done", "data": "bye", "id": 3, "delayMs": \#(gap)}]}}}
                """#)
            let client = try server.connect()
            let start = ContinuousClock.now
            try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
            try await client.receive(untilContains: #"data: {"pct":50}"#)
            // Lower bounds only: a busy machine can make a reader late, never the server early.
            try await client.receive(untilContains: "data: plain")
            #expect(ContinuousClock.now - start >= .milliseconds(gap - 10))
            let response = try await client.readResponse()
            #expect(ContinuousClock.now - start >= .milliseconds(2 * gap - 10))
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "text/event-stream; charset=utf-8")
            #expect(response.headers["Cache-Control"] == "no-cache")
            #expect(response.headers["X-Accel-Buffering"] == "no")
            #expect(response.headers["Transfer-Encoding"] == "chunked")
            #expect(response.headers["X-Stub"] == "yes")
            #expect(
                response.text
                    == "retry: 2500\n\nid: 1\nevent: progress\ndata: {\"pct\":50}\n\ndata: plain\ndata: text\n\n"
                    + "id: 3\nevent: done\ndata: bye\n\n")
        }
    }

    @Test func anOpenStreamStaysOpenAndIsReleasedWhenTheClientLeaves() async throws {
        try await withRunningServer { server in
            try await stub(
                server,
                #"""
                {"request": {"urlPath": "/open"}, "response": {"headers": {"Cache-Control": "no-store"},
                 "sse": {"close": false, "events": [{"data": "only"}]}}}
                """#)
            let client = try server.connect()
            try client.send("GET /open HTTP/1.1\r\nHost: t\r\n\r\n")
            try await client.receive(untilContains: "data: only\n\n")
            #expect(String(decoding: client.buffer, as: UTF8.self).contains("Cache-Control: no-store\r\n"))
            #expect(!String(decoding: client.buffer, as: UTF8.self).contains("no-cache"))
            #expect(await client.waitForClose(timeout: .milliseconds(400)) == .stillOpen)
            #expect(server.app.statistics.openConnections >= 1)
            client.close()
            #expect(await eventually { server.app.statistics.openConnections == 0 })
            #expect(await eventually { server.app.statistics.liveConnectionObjects == 0 })
        }
    }
}

@Suite("Stub mappings: precedence")
struct StubPrecedenceTests {
    @Test func builtInRoutesWinUnlessTheStubHasPriorityOne() async throws {
        try await withRunningServer { server in
            try await stub(server, #"{"request": {"urlPath": "/health"}, "response": {"body": "stub"}}"#)
            try await stub(
                server, #"{"priority": 2, "request": {"urlPath": "/health"}, "response": {"body": "stub2"}}"#)
            try await stub(server, #"{"request": {"method": "POST", "urlPath": "/health"}, "response": {"body": "p"}}"#)
            #expect(try await server.request("GET", "/health").text == #"{"status":"ok"}"#)
            #expect(try await server.request("POST", "/health").status == 405)
            try await stub(
                server, #"{"priority": 1, "request": {"urlPath": "/health"}, "response": {"body": "first"}}"#)
            #expect(try await server.request("GET", "/health").text == "first")
            #expect(try await server.request("POST", "/health").text == "first")
        }
    }

    @Test func stubsComeBeforeStaticFiles() async throws {
        try await withRunningServer { server in
            #expect(try await server.request("GET", "/").headers["Content-Type"]?.hasPrefix("text/html") == true)
            try await stub(server, #"{"request": {"method": "GET", "url": "/"}, "response": {"body": "stubbed"}}"#)
            #expect(try await server.request("GET", "/").text == "stubbed")
            #expect(try await server.request("GET", "/style.css").status == 200)
        }
    }

    @Test func lowerPriorityNumberFirstThenTheNewest() async throws {
        try await withRunningServer { server in
            try await stub(
                server, #"{"priority": 4, "request": {"urlPathPattern": "/p/.*"}, "response": {"body": "A"}}"#)
            try await stub(server, #"{"priority": 6, "request": {"urlPath": "/p/x"}, "response": {"body": "B"}}"#)
            #expect(try await server.request("GET", "/p/x").text == "A")
            try await stub(server, #"{"priority": 4, "request": {"urlPath": "/p/x"}, "response": {"body": "C"}}"#)
            #expect(try await server.request("GET", "/p/x").text == "C")
            #expect(try await server.request("GET", "/p/y").text == "A")
            // No priority is WireMock's default, 5: after 4, before 6.
            let plain = try await stub(server, #"{"request": {"urlPath": "/p/z"}, "response": {"body": "D"}}"#)
            try await stub(server, #"{"priority": 6, "request": {"urlPath": "/p/z"}, "response": {"body": "E"}}"#)
            #expect(try await server.request("GET", "/p/z").text == "A")
            let order = try await list(server).mappings.map { $0.priority ?? 5 }
            #expect(order == [4, 4, 5, 6, 6])
            #expect(try await server.request("DELETE", "/__admin/mappings/\(plain)").status == 200)
        }
    }

    @Test func theAdminAPIIsNeverStubbed() async throws {
        try await withRunningServer { server in
            try await stub(
                server,
                #"{"priority": 1, "request": {"method": "ANY", "urlPattern": ".*"}, "response": {"status": 418}}"#)
            #expect(try await server.request("GET", "/health").status == 418)
            #expect(try await server.request("GET", "/nowhere").status == 418)
            #expect(try await list(server).meta.total == 1)
            #expect(try await server.request("GET", "/__admin/health").status == 200)
        }
    }

    @Test func stubbedRequestsAreJournaled() async throws {
        try await withRunningServer { server in
            try await stub(server, #"{"request": {"urlPath": "/teapot"}, "response": {"status": 418}}"#)
            _ = try await server.request("GET", "/teapot?brew=1", headers: ["X-Client": "test"])
            let journal = try await server.request("GET", "/__admin/requests?path=/teapot")
            let entries = try JSONDecoder().decode([JournaledRequest].self, from: Data(journal.body))
            #expect(entries.map(\.target) == ["/teapot?brew=1"])
            #expect(entries.first?.status == 418)
        }
    }
}

@Suite("Stub mappings: admin API")
struct AdminMappingRoutesTests {
    @Test func listsGetsAndDeletesMappings() async throws {
        try await withRunningServer { server in
            let older = try await stub(server, #"{"name": "one", "request": {"urlPath": "/1"}, "response": {}}"#)
            let newer = try await stub(server, #"{"name": "two", "request": {"urlPath": "/2"}, "response": {}}"#)
            let all = try await list(server)
            #expect(all.meta.total == 2)
            #expect(all.mappings.map(\.id) == [newer, older])
            let page = try await list(server, "?offset=1&limit=1")
            #expect(page.mappings.map(\.id) == [older])
            #expect(page.meta.total == 2)
            let bad = try await server.request("GET", "/__admin/mappings?limit=-1")
            #expect(bad.status == 400)
            #expect(bad.text.contains("INVALID_QUERY"))

            let one = try await server.request("GET", "/__admin/mappings/\(older)")
            #expect(try JSONDecoder().decode(MappingEntry.self, from: Data(one.body)).name == "one")
            #expect(try await server.request("DELETE", "/__admin/mappings/\(older)").text == #"{"deleted":1}"#)
            #expect(try await server.request("GET", "/1").status == 404)
            for method in ["GET", "DELETE"] {
                let missing = try await server.request(method, "/__admin/mappings/\(older)")
                #expect(missing.status == 404)
                #expect(missing.headers["Content-Type"] == "application/problem+json")
                #expect(missing.text.contains("MAPPING_NOT_FOUND"))
            }
            let put = try await server.request(
                "PUT", "/__admin/mappings/\(older)", body: #"{"request":{},"response":{}}"#)
            #expect(put.status == 404)
            #expect(put.text.contains("MAPPING_NOT_FOUND"))
            #expect(try await server.request("DELETE", "/__admin/mappings").text == #"{"deleted":1}"#)
            #expect(try await list(server).meta.total == 0)
            #expect(try await server.request("GET", "/2").status == 404)
        }
    }

    @Test func aGivenIDIsKeptAndPostingItAgainReplacesTheMapping() async throws {
        try await withRunningServer { server in
            #expect(
                try await stub(server, #"{"id": "my-stub", "request": {"urlPath": "/m"}, "response": {"body": "1"}}"#)
                    == "my-stub")
            try await stub(server, #"{"id": "my-stub", "request": {"urlPath": "/m"}, "response": {"body": "2"}}"#)
            #expect(try await list(server).meta.total == 1)
            #expect(try await server.request("GET", "/m").text == "2")
            #expect(try await stub(server, #"{"uuid": "by-uuid", "request": {}, "response": {}}"#) == "by-uuid")
        }
    }

    @Test func putReplacesAMappingInPlace() async throws {
        try await withRunningServer { server in
            let id = try await stub(server, #"{"request": {"urlPath": "/edit"}, "response": {"body": "before"}}"#)
            try await stub(server, #"{"request": {"urlPath": "/other"}, "response": {}}"#)
            let put = try await server.request(
                "PUT", "/__admin/mappings/\(id)",
                body: #"{"request": {"urlPath": "/edit"}, "response": {"body": "after"}}"#)
            #expect(put.status == 200)
            #expect(try JSONDecoder().decode(MappingEntry.self, from: Data(put.body)).id == id)
            #expect(try await server.request("GET", "/edit").text == "after")
            #expect(try await list(server).mappings.last?.id == id)
            // As in WireMock, the path names the mapping; an id in the body is only checked.
            let otherID = try await server.request(
                "PUT", "/__admin/mappings/\(id)", body: #"{"id": "else", "request": {}, "response": {}}"#)
            #expect(otherID.status == 200)
            #expect(try JSONDecoder().decode(MappingEntry.self, from: Data(otherID.body)).id == id)
            let badID = try await server.request(
                "PUT", "/__admin/mappings/\(id)", body: #"{"id": "a/b", "request": {}, "response": {}}"#)
            #expect(badID.status == 400)
            #expect(badID.text.contains("INVALID_MAPPING"))
            let invalid = try await server.request(
                "PUT", "/__admin/mappings/\(id)", body: #"{"request": {}, "response": {"status": 0}}"#)
            #expect(invalid.status == 400)
            #expect(invalid.text.contains("response.status must be 100-599"))
        }
    }

    @Test func importAddsEveryMappingOrNone() async throws {
        try await withRunningServer { server in
            let bad = try await server.request(
                "POST", "/__admin/mappings/import",
                body: #"{"mappings": [{"request": {}, "response": {}}, {"request": {"url": 1}, "response": {}}]}"#)
            #expect(bad.status == 400)
            #expect(bad.text.contains("mappings[1].request.url must be a string"))
            #expect(try await list(server).meta.total == 0)
            let good = try await server.request(
                "POST", "/__admin/mappings/import",
                body: #"""
                    {"mappings": [{"request": {"urlPath": "/i1"}, "response": {}},
                                  {"request": {"urlPath": "/i2"}, "response": {}}]}
                    """#)
            #expect(good.status == 200)
            #expect(try await list(server).meta.total == 2)
            #expect(try await server.request("GET", "/i2").status == 200)
        }
    }

    @Test func generatedIDsRepeatWithASeed() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.seed = 7
        let first = try await withRunningServer(configuration) { server in
            try await stub(server, #"{"request": {}, "response": {}}"#)
        }
        let second = try await withRunningServer(configuration) { server in
            try await stub(server, #"{"request": {}, "response": {}}"#)
        }
        #expect(first == second)
    }
}

@Suite("Stub mappings: files")
struct MappingFileTests {
    private var configuration: MockBackendConfiguration {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.mappingsDirectory = fixtures
        return configuration
    }

    @Test func wireMockFilesAnswerAsWireMockWould() async throws {
        try await withRunningServer(configuration) { server in
            let book = try await server.request("GET", "/api/books/42", headers: ["Accept": "application/json"])
            #expect(book.status == 200)
            #expect(book.headers.values(for: "Content-Type") == ["application/json"])
            #expect(book.headers["Cache-Control"] == "max-age=60")
            #expect(
                book.text
                    == #"{"author":"Frank Herbert","id":42,"tags":["sci-fi","classic"],"title":"Dune","year":1965}"#)
            #expect(try await server.request("GET", "/api/books/42").status == 404)
            #expect(
                try await server.request("GET", "/api/books/dune", headers: ["Accept": "application/json"]).status
                    == 404)

            let order = #"{"items":[{"sku":"dune","qty":1}]}"#
            let orderStart = ContinuousClock.now
            let created = try await server.request(
                "POST", "/api/orders", headers: ["Authorization": "Bearer eyJhbGciOi.abc-123"], body: order)
            #expect(ContinuousClock.now - orderStart >= .milliseconds(300))
            #expect(created.status == 201)
            #expect(created.headers["Location"] == "/api/orders/ord_1001")
            #expect(created.headers["X-Request-Id"] == "req-7f3a")
            #expect(created.headers["Content-Type"] == "application/json")
            #expect(
                created.text == #"{"id":"ord_1001","status":"pending","total":{"amount":"24.90","currency":"EUR"}}"#)
            #expect(try await server.request("POST", "/api/orders", body: order).status == 404)
            let wrongType = try await server.request(
                "POST", "/api/orders", headers: ["Authorization": "Bearer x", "Content-Type": "text/plain"], body: order
            )
            #expect(wrongType.status == 404)

            let featured = try await server.request("GET", "/api/catalog/featured?limit=3")
            #expect(featured.status == 200)
            #expect(featured.headers["Content-Type"] == "text/plain; charset=utf-8")
            #expect(featured.text == "Dune\nNeuromancer\nHyperion\n")
            #expect(try await server.request("GET", "/api/catalog/featured?limit=4").status == 404)
            let categories = try await server.request("GET", "/api/catalog/categories?lang=en")
            #expect(categories.text == #"[{"id":"sf","name":"Science fiction"},{"id":"fantasy","name":"Fantasy"}]"#)
            #expect(try await server.request("GET", "/api/catalog/categories?lang=de").status == 404)

            let ids = Set(try await list(server).mappings.map(\.id))
            #expect(
                ids == [
                    "5d0b6c2e-8f43-4b8e-9a57-6f0d7c1e2a31", "0f9a3b7c-1d2e-4f50-8a6b-3c4d5e6f7a8b",
                    "a1c2e3f4-5b6d-4e7f-8091-a2b3c4d5e6f7", "b7d8e9f0-1a2b-4c3d-9e4f-5a6b7c8d9e0f",
                ])
        }
    }

    @Test func resetKeepsTheFileMappingsAndDropsTheRest() async throws {
        try await withRunningServer(configuration) { server in
            try await stub(server, #"{"request": {"urlPath": "/added"}, "response": {}}"#)
            #expect(try await list(server).meta.total == 5)
            #expect(try await server.request("POST", "/__admin/reset").status == 200)
            #expect(try await list(server).meta.total == 4)
            #expect(try await server.request("GET", "/added").status == 404)
            #expect(try await server.request("DELETE", "/__admin/mappings").text == #"{"deleted":4}"#)
            #expect(try await server.request("GET", "/api/catalog/featured?limit=3").status == 404)
            let restored = try await server.request("POST", "/__admin/mappings/reset")
            #expect(try JSONDecoder().decode(MappingList.self, from: Data(restored.body)).meta.total == 4)
            #expect(try await server.request("GET", "/api/catalog/featured?limit=3").status == 200)
        }
        try await withRunningServer { server in
            try await stub(server, #"{"request": {}, "response": {}}"#)
            #expect(try await server.request("POST", "/__admin/reset").status == 200)
            #expect(try await list(server).meta.total == 0)
        }
    }

    @Test func aBadFileStopsTheStartNamingTheFileAndField() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("a-good.json", #"{"request": {"urlPath": "/g"}, "response": {}}"#)
        try directory.write("nested/b-bad.json", #"{"request": {"urlPathPattern": "(["}, "response": {}}"#)
        var configuration = MockBackendConfiguration.forTesting()
        configuration.mappingsDirectory = directory.path
        await #expect(throws: MappingFileError.self) {
            try await withRunningServer(configuration) { _ in }
        }
        #expect(
            throws: MappingFileError(
                detail: "nested/b-bad.json: request.urlPathPattern is not a valid regular expression")
        ) {
            try MappingFiles.load(directory: directory.path)
        }
    }

    @Test func loadsNestedFilesInPathOrderAndSkipsDotfiles() throws {
        let directory = try TemporaryDirectory()
        try directory.write("b.json", #"{"id": "b", "request": {}, "response": {}}"#)
        try directory.write(
            "a/z.json",
            #"{"mappings": [{"id": "a1", "request": {}, "response": {}}, {"id": "a2", "request": {}, "response": {}}]}"#
        )
        try directory.write(".hidden.json", "not json")
        try directory.write("notes.txt", "not json")
        #expect(try MappingFiles.load(directory: directory.path).map(\.id) == ["a1", "a2", "b"])
        try directory.write("c.json", #"{"id": "a2", "request": {}, "response": {}}"#)
        #expect(throws: MappingFileError(detail: "c.json: id a2 is also used in a/z.json")) {
            try MappingFiles.load(directory: directory.path)
        }
        #expect(throws: MappingFileError(detail: "cannot read the mappings directory /no/such/dir")) {
            try MappingFiles.load(directory: "/no/such/dir")
        }
        try directory.write("c.json", #"{"mappings": {"id": "x"}}"#)
        #expect(throws: MappingFileError(detail: "c.json: mappings must be an array")) {
            try MappingFiles.load(directory: directory.path)
        }
    }
}

/// A directory under the system's temporary directory, removed when the value goes.
private final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("mappings-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ text: String) throws {
        let url = URL(fileURLWithPath: path + "/" + name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
}

/// A mapping that must be refused, and the words the refusal must contain.
struct InvalidMapping: Sendable, CustomTestStringConvertible {
    var body: String
    var detail: String
    var testDescription: String { detail }

    init(_ body: String, _ detail: String) {
        self.body = body
        self.detail = detail
    }

    static func response(_ response: String) -> String { #"{"request": {"urlPath": "/x"}, "response": \#(response)}"# }
    static func request(_ request: String) -> String { #"{"request": \#(request), "response": {}}"# }
    static func sse(_ sse: String) -> String { response(#"{"sse": \#(sse)}"#) }

    static let all: [InvalidMapping] = [
        InvalidMapping("", "The body is empty"),
        InvalidMapping("{", "The body is not valid JSON"),
        InvalidMapping("[]", "the mapping must be a JSON object"),
        InvalidMapping(#"{"response": {}}"#, "request is required"),
        InvalidMapping(#"{"request": {}}"#, "response is required"),
        InvalidMapping(#"{"requests": {}, "request": {}, "response": {}}"#, "requests is not a known field"),
        InvalidMapping(
            #"{"postServeActions": [], "request": {}, "response": {}}"#, "postServeActions is not supported"),
        InvalidMapping(#"{"priority": 0, "request": {}, "response": {}}"#, "priority must be 1 or more"),
        InvalidMapping(#"{"priority": "high", "request": {}, "response": {}}"#, "priority must be an integer"),
        InvalidMapping(#"{"id": "a/b", "request": {}, "response": {}}"#, "id must be 1-128 letters"),
        InvalidMapping(#"{"id": "a", "uuid": "b/c", "request": {}, "response": {}}"#, "uuid must be 1-128 letters"),
        InvalidMapping(#"{"id": "reset", "request": {}, "response": {}}"#, "id must not be 'reset'"),
        InvalidMapping(#"{"request": [], "response": {}}"#, "request must be a JSON object"),
        InvalidMapping(
            request(#"{"urlPathPattern": "(["}"#), "request.urlPathPattern is not a valid regular expression"),
        InvalidMapping(request(#"{"urlPattern": "*"}"#), "request.urlPattern is not a valid regular expression"),
        InvalidMapping(
            request(#"{"url": "/a", "urlPath": "/a"}"#),
            "request has more than one of url/urlPath/urlPathPattern/urlPattern"),
        InvalidMapping(request(#"{"url": 1}"#), "request.url must be a string"),
        InvalidMapping(request(#"{"method": "GE T"}"#), "request.method must be a method name"),
        InvalidMapping(request(#"{"method": 5}"#), "request.method must be a string"),
        InvalidMapping(
            request(#"{"bodyPatterns": [{"matchesXPath": "/a"}]}"#),
            "request.bodyPatterns[0].matchesXPath is not supported"),
        InvalidMapping(request(#"{"bodyPatterns": {}}"#), "request.bodyPatterns must be an array"),
        InvalidMapping(request(#"{"urlPathTemplate": "a/{id}"}"#), "request.urlPathTemplate must start with '/'"),
        InvalidMapping(request(#"{"colour": "red"}"#), "request.colour is not a known field"),
        InvalidMapping(request(#"{"headers": []}"#), "request.headers must be a JSON object"),
        InvalidMapping(request(#"{"headers": {"Accept": "json"}}"#), "request.headers.Accept must be a JSON object"),
        InvalidMapping(
            request(#"{"headers": {"Accept": {"equalTo": "a", "contains": "b"}}}"#),
            "request.headers.Accept must have exactly one of equalTo, contains, matches, absent, or and and"),
        InvalidMapping(request(#"{"headers": {"Accept": {}}}"#), "request.headers.Accept must have exactly one of"),
        InvalidMapping(
            request(#"{"headers": {"Accept": {"matches": "("}}}"#),
            "request.headers.Accept.matches is not a valid regular expression"),
        InvalidMapping(
            request(#"{"headers": {"Accept": {"doesNotMatch": "x"}}}"#),
            "request.headers.Accept.doesNotMatch is not supported by mockbackend; use equalTo, contains, matches"),
        InvalidMapping(
            request(#"{"headers": {"Accept": {"equalsTo": "x"}}}"#),
            "request.headers.Accept.equalsTo is not a known field"),
        InvalidMapping(
            request(#"{"headers": {"Accept": {"contains": "x", "caseInsensitive": true}}}"#),
            "request.headers.Accept.caseInsensitive goes only with equalTo"),
        InvalidMapping(request(#"{"headers": {"X": {"absent": false}}}"#), "request.headers.X.absent must be true"),
        InvalidMapping(request(#"{"headers": {"X": {"equalTo": 1}}}"#), "request.headers.X.equalTo must be a string"),
        InvalidMapping(
            request(#"{"queryParameters": {"q": {"matches": "["}}}"#),
            "request.queryParameters.q.matches is not a valid regular expression"),
        InvalidMapping(response(#"{"status": 600}"#), "response.status must be 100-599"),
        InvalidMapping(response(#"{"status": 99}"#), "response.status must be 100-599"),
        InvalidMapping(response(#"{"status": "200"}"#), "response.status must be an integer"),
        InvalidMapping(response(#"{"body": "a", "jsonBody": {}}"#), "response has both body and jsonBody"),
        InvalidMapping(response(#"{"jsonBody": {}, "sse": {}}"#), "response has both jsonBody and sse"),
        InvalidMapping(response(#"{"body": 5}"#), "response.body must be a string"),
        InvalidMapping(response(#"{"base64Body": "!!"}"#), "response.base64Body is not valid base64"),
        InvalidMapping(
            response(#"{"headers": {"X": 5}}"#), "response.headers.X must be a string or an array of strings"),
        InvalidMapping(response(#"{"headers": {"X": ["a", 1]}}"#), "response.headers.X must be a string or an array"),
        InvalidMapping(
            response(#"{"headers": {"Bad Name": "x"}}"#), "response.headers.Bad Name is not a valid header name"),
        InvalidMapping(
            response(#"{"headers": {"X": "a\r\nY: b"}}"#), "response.headers.X must not contain CR, LF or NUL"),
        InvalidMapping(
            response(#"{"fixedDelayMilliseconds": -1}"#), "response.fixedDelayMilliseconds must be 0 or more"),
        InvalidMapping(
            response(#"{"fixedDelayMilliseconds": 3600001}"#), "response.fixedDelayMilliseconds must be at most"),
        InvalidMapping(
            response(#"{"fixedDelayMilliseconds": 1.5}"#), "response.fixedDelayMilliseconds must be an integer"),
        InvalidMapping(
            response(#"{"bodyFileName": "b.json"}"#),
            "response.bodyFileName needs a __files directory beside or inside the --mappings directory"),
        InvalidMapping(response(#"{"fault": "EMPTY_RESPONSE"}"#), "response.fault is not supported"),
        InvalidMapping(response(#"{"statusMessage": "Fine"}"#), "response.statusMessage is not supported"),
        InvalidMapping(response(#"{"sse": []}"#), "response.sse must be a JSON object"),
        InvalidMapping(sse(#"{"events": {}}"#), "response.sse.events must be an array"),
        InvalidMapping(
            sse(#"{"events": [{"data": "a"}, {"data": "b"}, {"data": "c", "delayMs": -5}]}"#),
            "response.sse.events[2].delayMs must be 0 or more"),
        InvalidMapping(sse(#"{"events": [{"event": "x"}]}"#), "response.sse.events[0].data is required"),
        InvalidMapping(
            sse(#"{"events": [{"event": "a\nb", "data": 1}]}"#), "response.sse.events[0].event must be a non-empty"),
        InvalidMapping(sse(#"{"events": [{"id": true, "data": 1}]}"#), "response.sse.events[0].id must be a string"),
        InvalidMapping(
            sse(#"{"events": [{"id": "a\nb", "data": 1}]}"#), "response.sse.events[0].id must be a single line"),
        InvalidMapping(
            sse(#"{"events": [{"comments": "x", "data": 1}]}"#), "response.sse.events[0].comments is not a known field"),
        InvalidMapping(sse(#"{"events": [{"retry": -3}]}"#), "response.sse.events[0].retry must be 0 or more"),
        InvalidMapping(sse(#"{"end": "sometimes"}"#), "response.sse.end must be one of clean, fin, rst, open"),
        InvalidMapping(sse(#"{"end": "fin", "close": true}"#), "response.sse.close cannot be combined with end"),
        InvalidMapping(
            sse(#"{"preserveChunking": true, "events": []}"#),
            "response.sse.events cannot be combined with preserveChunking"),
        InvalidMapping(sse(#"{"chunks": []}"#), "response.sse.chunks needs \"preserveChunking\": true"),
        InvalidMapping(
            response(#"{"webSocket": {"messages": [{"text": "a", "binary": "AA=="}]}}"#),
            "response.webSocket.messages[0] needs exactly one of text and binary"),
        InvalidMapping(
            response(#"{"webSocket": {"messages": [{"binary": "***"}]}}"#),
            "response.webSocket.messages[0].binary is not base64"),
        InvalidMapping(
            response(#"{"webSocket": {"close": {"code": 1005}}}"#),
            "response.webSocket.close.code must be a close code that may be sent"),
        InvalidMapping(
            response(#"{"webSocket": {"close": {"reason": "\#(String(repeating: "r", count: 124))"}}}"#),
            "response.webSocket.close.reason must be at most 123 bytes"),
        InvalidMapping(
            response(#"{"status": 200, "webSocket": {}}"#), "response.status cannot be combined with webSocket"),
        InvalidMapping(
            response(#"{"webSocket": {"message": []}}"#), "response.webSocket.message is not a known field"),
        InvalidMapping(
            sse(#"{"preserveChunking": true, "chunks": [{"text": "a", "base64": "YQ=="}]}"#),
            "response.sse.chunks[0] needs exactly one of text and base64"),
        InvalidMapping(
            sse(#"{"preserveChunking": true, "chunks": [{"base64": "***"}]}"#),
            "response.sse.chunks[0].base64 is not base64"),
        InvalidMapping(sse(#"{"events": ["a"]}"#), "response.sse.events[0] must be a JSON object"),
        InvalidMapping(sse(#"{"retry": -1}"#), "response.sse.retry must be 0 or more"),
        InvalidMapping(sse(#"{"close": "no"}"#), "response.sse.close must be true or false"),
        InvalidMapping(
            sse(#"{"events": [{"data": "\#(String(repeating: "x", count: 9_000_000))"}]}"#),
            "response.sse is 9000008 bytes once encoded; at most 8388608 are allowed"),
    ]
}

@Suite("Stub mappings: refused")
struct InvalidMappingTests {
    @Test(arguments: InvalidMapping.all)
    func isRefusedNamingTheField(_ mapping: InvalidMapping) async throws {
        try await withRunningServer { server in
            let response = try await server.request("POST", "/__admin/mappings", body: mapping.body)
            #expect(response.status == 400)
            #expect(response.headers["Content-Type"] == "application/problem+json")
            let problem = try JSONDecoder().decode(ProblemDetails.self, from: Data(response.body))
            #expect(problem.code == "INVALID_MAPPING")
            #expect(problem.detail.contains(mapping.detail), "\(problem.detail)")
            #expect(try await list(server).meta.total == 0)
        }
    }
}
