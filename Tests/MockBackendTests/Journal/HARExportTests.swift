import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import Testing

/// `GET /__admin/requests?format=har`: the journal as HAR 1.2, event streams with their
/// events as the body text, secrets of proxied answers redacted.
@Suite("Request journal: HAR export")
struct HARExportTests {
    private static func har(_ server: RunningServer, query: String = "") async throws -> [String: JSONValue] {
        let response = try await server.request("GET", "/__admin/requests?format=har\(query)")
        #expect(response.status == 200)
        #expect(response.headers["Content-Disposition"] == #"attachment; filename="mockbackend.har""#)
        return try JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))
    }

    private static func entries(_ har: [String: JSONValue]) -> [[String: JSONValue]] {
        guard case .object(let log) = har["log"], case .array(let entries) = log["entries"] else { return [] }
        return entries.compactMap { if case .object(let entry) = $0 { entry } else { nil } }
    }

    private static func field(_ value: JSONValue?, _ path: String...) -> JSONValue? {
        var current = value
        for key in path {
            guard case .object(let object) = current else { return nil }
            current = object[key]
        }
        return current
    }

    @Test func entriesComeOldestFirstWithRequestsAndAnswers() async throws {
        try await withRunningServer { server in
            _ = try await server.request(
                "POST", "/__admin/mappings",
                body:
                    #"{"request": {"urlPath": "/ticks"}, "response": {"sse": {"events": [{"id": "1", "data": "one"}, {"data": "two", "delayMs": 10}]}}}"#
            )
            _ = try await server.request("GET", "/ticks")
            _ = try await server.request("POST", "/api/things?color=red", body: #"{"name":"x"}"#)
            let har = try await Self.har(server)
            #expect(Self.field(har["log"], "version") == .string("1.2"))
            #expect(Self.field(har["log"], "creator", "name") == .string("mockbackend"))
            let entries = Self.entries(har)
            #expect(entries.count == 2)
            let stream = try #require(entries.first)
            #expect(Self.field(.object(stream), "request", "url") == .string("http://127.0.0.1:\(server.port)/ticks"))
            #expect(Self.field(.object(stream), "response", "status") == .integer(200))
            #expect(
                Self.field(.object(stream), "response", "content", "text")
                    == .string("id: 1\ndata: one\n\ndata: two\n\n"))
            #expect(
                Self.field(.object(stream), "response", "content", "mimeType")
                    == .string("text/event-stream; charset=utf-8"))
            let posted = try #require(entries.last)
            #expect(Self.field(.object(posted), "request", "method") == .string("POST"))
            #expect(Self.field(.object(posted), "request", "postData", "text") == .string(#"{"name":"x"}"#))
            #expect(
                Self.field(.object(posted), "request", "queryString")
                    == .array([.object(["name": .string("color"), "value": .string("red")])]))
            #expect(Self.field(.object(posted), "response", "status") == .integer(404))
            #expect(Self.field(.object(posted), "response", "statusText") == .string("Not Found"))
            // Filters apply as to the JSON listing.
            #expect(Self.entries(try await Self.har(server, query: "&method=POST")).count == 1)
        }
    }

    @Test func aProxiedAnswersCookieIsRedacted() async throws {
        try await withProxiedUpstream { upstream, proxy in
            _ = try await upstream.request(
                "POST", "/__admin/mappings",
                body:
                    #"{"request": {"urlPath": "/login"}, "response": {"headers": {"Set-Cookie": "sid=s3cr3t-cookie-value; Path=/"}, "body": "in"}}"#
            )
            _ = try await proxy.request("GET", "/login", headers: ["Authorization": "Bearer tok-abcdefgh-123456"])
            let text = try await proxy.request("GET", "/__admin/requests?format=har").text
            #expect(text.contains("Set-Cookie"))
            #expect(!text.contains("s3cr3t-cookie-value"))
            #expect(!text.contains("tok-abcdefgh-123456"))
        }
    }

    @Test func anUnknownFormatIs400() async throws {
        try await withRunningServer { server in
            let response = try await server.request("GET", "/__admin/requests?format=xml")
            #expect(response.status == 400)
            #expect(response.text.contains("INVALID_QUERY"))
            #expect(response.text.contains("format must be json or har"))
        }
    }
}
