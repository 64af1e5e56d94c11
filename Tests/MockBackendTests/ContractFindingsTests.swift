import Foundation
import MockBackend
import MockBackendTesting
import TestSupport
import Testing

/// Inputs the contract check (`openapi/check.sh`, schemathesis against the running server)
/// found the server mishandling, each sent as it was found, over a real socket.
@Suite("Contract check findings")
struct ContractFindingsTests {
    private func json(_ response: RawResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    /// `{"speed": 5e-324}` made the clock's wait overflow when it re-armed: a trap that took
    /// the whole server down.
    @Test func aTinyClockSpeedDoesNotStopTheServer() async throws {
        try await withInMemoryApp { server in
            let slow = try await server.request("PUT", "/__admin/clock", body: #"{"speed": 5e-324}"#)
            #expect(slow.status == 200)
            #expect(try await server.request("GET", "/health").status == 200)
            #expect(try await server.request("PUT", "/__admin/clock", body: #"{"speed": 10000}"#).status == 200)
            #expect(try await server.request("GET", "/health").status == 200)
        }
    }

    /// `/__admin/mappings/reset` also matched `/__admin/mappings/{id}`, so OPTIONS listed
    /// GET, PUT and DELETE on it; a concrete path wins over a template, as in OpenAPI.
    @Test func aConcretePathIsNotAlsoItsTemplate() async throws {
        try await withInMemoryApp { server in
            let options = try await server.request("OPTIONS", "/__admin/mappings/reset")
            #expect(options.status == 204)
            #expect(options.headers["Allow"] == "POST, OPTIONS")
            #expect(try await server.request("GET", "/__admin/mappings/reset").status == 405)
            #expect(try await server.request("GET", "/__admin/mappings/elsewhere").status == 404)
            let reserved = try await server.request(
                "POST", "/__admin/mappings", body: #"{"id": "reset", "request": {}, "response": {}}"#)
            #expect(reserved.status == 400)
            #expect(reserved.text.contains("INVALID_MAPPING"))
        }
    }

    /// `?retry=600001` with a Last-Event-ID was answered 204 instead of being refused.
    @Test(arguments: Transport.available)
    func reconnectThen204ChecksRetryFirst(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let response = try await server.request(
                "GET", "/conformance/sse/reconnect-then-204?retry=600001", headers: ["Last-Event-ID": ""])
            #expect(response.status == 400)
        }
    }

    /// `?id=ÊP:E%01%07%F1%BC%A7%BC%0D%00` went out as an `id:` with its CR dropped and its
    /// NULL kept, which a client ignores: the event arrived without the id asked for.
    @Test func echoRefusesAnIDNoClientCanKeep() async throws {
        try await withInMemoryApp { server in
            let target = "/conformance/sse/echo-last-event-id?retry=1702&id=%C3%8AP%3AE%01%07%F1%BC%A7%BC%0D%00"
            let refused = try await server.request("GET", target)
            #expect(refused.status == 400)
            let lineFeed = try await server.request("GET", "/conformance/sse/echo-last-event-id?id=a%0Ab")
            #expect(lineFeed.status == 400)
            let accepted = try await server.request("GET", "/conformance/sse/echo-last-event-id?id=%C3%8AP")
            #expect(accepted.status == 200)
            #expect(accepted.text.contains("id: ÊP\n"))
        }
    }

    /// `?mime=` (empty) was sent as an empty Content-Type.
    @Test func rawRefusesAContentTypeThatIsNoMediaType() async throws {
        try await withInMemoryApp { server in
            let target = "/conformance/sse/raw?body=&chunk=27391&chunkDelay=42478&mime="
            let response = try await server.request("GET", target)
            #expect(response.status == 400)
            #expect(response.text.contains("INVALID_QUERY"))
            // `a/b;` is a media type: RFC 9110 §8.3.1 allows an empty parameter.
            for mime in ["text", "a/b;c", "a/b; =c", "a b/c"] {
                let encoded = mime.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? mime
                #expect(try await server.request("GET", "/conformance/sse/raw?mime=\(encoded)").status == 400)
            }
            let quoted = "text/plain; charset=\"utf-8\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let ok = try await server.request("GET", "/conformance/sse/raw?body=x&mime=\(quoted)")
            #expect(ok.status == 200)
            #expect(ok.headers["Content-Type"] == "text/plain; charset=\"utf-8\"")
        }
    }

    /// A push with `data: null` and `retry` took the bare-retry path before `count` and
    /// `event` were checked, so an out-of-range count was accepted.
    @Test func pushChecksEveryField() async throws {
        try await withInMemoryApp { server in
            let body = #"{"event": "", "data": null, "id": "2", "retry": 0, "connection": 0, "count": 1000001}"#
            let response = try await server.request("POST", "/__admin/streams/channels/contract/events", body: body)
            #expect(response.status == 400)
            let count = #"{"data": null, "retry": 0, "count": 1000001}"#
            #expect(
                try await server.request("POST", "/__admin/streams/channels/contract/events", body: count).status == 400
            )
        }
    }

    /// `split`, `variant` and `kb` were checked only for the kinds that read them.
    @Test func faultFieldsAreCheckedWhateverTheKind() async throws {
        try await withInMemoryApp { server in
            for fault in [
                #"{"kind": "status", "kb": 0}"#, #"{"kind": "delay", "ms": 1, "split": "words"}"#,
                #"{"kind": "reset", "variant": "SOMETHING_ELSE"}"#,
            ] {
                let response = try await server.request("POST", "/__admin/faults", body: #"{"fault": \#(fault)}"#)
                #expect(response.status == 400, "\(fault)")
            }
            #expect(try await server.request("GET", "/__admin/faults").text == "[]")
        }
    }

    /// A mapping whose `uuid` differed from its `id` was refused, and a PUT whose body named
    /// another id too; WireMock lets `id` win and the path name the mapping.
    @Test func mappingIDsAsWireMockReadsThem() async throws {
        try await withInMemoryApp { server in
            let created = try await server.request(
                "POST", "/__admin/mappings", body: #"{"id": "a", "uuid": "b", "request": {}, "response": {}}"#)
            #expect(created.status == 201)
            #expect(try json(created)["id"] as? String == "a")
            #expect(try json(created)["uuid"] as? String == "a")
            let put = try await server.request(
                "PUT", "/__admin/mappings/a", body: #"{"id": "0", "name": "renamed", "request": {}, "response": {}}"#)
            #expect(put.status == 200)
            #expect(try json(put)["id"] as? String == "a")
            #expect(try await server.request("GET", "/__admin/mappings/0").status == 404)
            let badUUID = try await server.request(
                "POST", "/__admin/mappings", body: #"{"id": "c", "uuid": "", "request": {}, "response": {}}"#)
            #expect(badUUID.status == 400)
            let persistent = try await server.request(
                "POST", "/__admin/mappings", body: #"{"persistent": "yes", "request": {}, "response": {}}"#)
            #expect(persistent.status == 400)
            let list = try await server.request(
                "POST", "/__admin/mappings/import", body: #"{"mappings": null, "request": {}, "response": {}}"#)
            #expect(list.status == 200)
        }
    }

    /// `"matches": "^H😍A\\D{2}🏻{1,3}?n`¥?"`, a valid pattern in ECMAScript and Java, was
    /// refused: Swift's parser fused the skin-tone modifier with the `}` before it.
    @Test func aCombiningMarkAfterAMetacharacterIsALiteral() async throws {
        try await withInMemoryApp { server in
            let pattern = #"^H😍A\\D{2}🏻{1,3}?n`¥?"#
            let mapping = """
                {"mappings": [{"request": {"urlPath": "/emoji", "queryParameters": {"tag": {"matches": "\(pattern)"}}},
                "response": {"status": 200, "body": "matched"}}]}
                """
            #expect(try await server.request("POST", "/__admin/mappings/import", body: mapping).status == 200)
            func tag(_ value: String) -> String {
                "/emoji?tag=" + value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            }
            #expect(try await server.request("GET", tag("H😍A--🏻🏻n`")).text == "matched")
            #expect(try await server.request("GET", tag("H😍A--n`")).status == 404)
            let count = try await server.request(
                "POST", "/__admin/requests/count", body: #"{"urlPathPattern": "/e\\u{6D}oji|a{2}\#u{301}"}"#)
            #expect(count.status == 200)
            #expect(try json(count)["count"] as? Int == 2)
        }
    }

    /// `"currency": "ÄÖÜ"` passed the upper-case check meant for ISO 4217 codes.
    @Test func aCurrencyIsThreeASCIILetters() async throws {
        try await withInMemoryApp { server in
            let response = try await server.request(
                "POST", "/__admin/users", body: #"{"username": "u", "password": "p", "currency": "ÄÖÜ"}"#)
            #expect(response.status == 400)
        }
    }

    /// `{"amount": 9.075985670314785e+307}` made the balance infinite, and the answer a 500.
    @Test func anAmountTooLargeIsRefused() async throws {
        try await withInMemoryApp { server in
            let body =
                #"{"amount": 9.075985670314785e+307, "operationType": null, "wallet": null, "productType": null}"#
            let response = try await server.request("POST", "/__admin/users/7000001/balance", body: body)
            #expect(response.status == 400)
            let rich = try await server.request(
                "POST", "/__admin/users", body: #"{"username": "u", "password": "p", "balance": 1e300}"#)
            #expect(rich.status == 400)
            let balance = try await server.request("POST", "/__admin/users/7000001/balance", body: #"{"amount": 1e12}"#)
            #expect(balance.status == 200)
        }
    }

    /// `since=0419-03-30T20:15:13.0-21:23` is an RFC 3339 date-time the parser refused.
    @Test func sinceTakesEveryRFC3339DateTime() async throws {
        try await withInMemoryApp { server in
            for since in ["0419-03-30T20%3A15%3A13.0-21%3A23", "2026-01-01t00%3A00%3A00z", "1998-12-31T23%3A59%3A60Z"] {
                let response = try await server.request("GET", "/__admin/requests?since=\(since)")
                #expect(response.status == 200, "\(since)")
            }
            for since in ["2026-02-30T00%3A00%3A00Z", "2026-01-01T00%3A00%3A00", "2026-01-01T24%3A00%3A00Z"] {
                let response = try await server.request("GET", "/__admin/requests?since=\(since)")
                #expect(response.status == 400, "\(since)")
            }
        }
        let date = try #require(Timestamp.parse("1970-01-02T01:00:00.5+01:00"))
        #expect(date.timeIntervalSince1970 == 86_400.5)
    }
}
