import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// Response templates over real sockets: mappings from the admin API and from files, the
/// transformer and the global flag, headers, bodies and `sse` data, the simulation clock,
/// `--seed`, and every refusal.
@Suite("Response templates")
struct ResponseTemplateTests {
    private static func add(_ server: some AppUnderTest, _ mapping: String) async throws {
        let added = try await server.request("POST", "/__admin/mappings", body: mapping)
        #expect(added.status == 201, "\(added.text)")
    }

    /// The README's templated echo.
    @Test func aTemplatedStubEchoesTheRequest() async throws {
        try await withRunningServer { server in
            try await Self.add(
                server,
                #"""
                {"name": "echo", "request": {"method": "POST", "urlPathPattern": "/api/orders/[0-9]+"},
                 "response": {"status": 201, "transformers": ["response-template"],
                   "headers": {"X-Request-Id": "{{request.headers.X-Request-Id}}", "Location": "/api/orders/{{request.pathSegments.[2]}}"},
                   "jsonBody": {"id": "{{request.pathSegments.[2]}}", "item": "{{jsonPath request.body '$.item'}}",
                                "tags": "{{#each (jsonPath request.body '$.tags') as |tag|}}{{tag}}{{#unless @last}},{{/unless}}{{/each}}",
                                "express": "{{#eq request.query.express 'yes'}}true{{else}}false{{/eq}}"}}}
                """#)
            let answer = try await server.request(
                "POST", "/api/orders/42?express=yes", headers: ["X-Request-Id": "req-7"],
                body: #"{"item": "tea", "tags": ["hot", "green"]}"#)
            #expect(answer.status == 201)
            #expect(answer.headers["X-Request-Id"] == "req-7")
            #expect(answer.headers["Location"] == "/api/orders/42")
            #expect(answer.headers["Content-Type"] == "application/json")
            let json = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: String]
            #expect(json == ["id": "42", "item": "tea", "tags": "hot,green", "express": "true"])
            // Without the transformer, braces are text.
            try await Self.add(server, #"{"request": {"urlPath": "/plain"}, "response": {"body": "{{request.path}}"}}"#)
            #expect(try await server.request("GET", "/plain").text == "{{request.path}}")
        }
    }

    @Test func theGlobalFlagTemplatesEveryMapping() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.globalResponseTemplating = true
        try await withRunningServer(configuration) { server in
            try await Self.add(server, #"{"request": {"urlPath": "/plain"}, "response": {"body": "{{request.path}}"}}"#)
            #expect(try await server.request("GET", "/plain").text == "/plain")
            let refused = try await server.request(
                "POST", "/__admin/mappings",
                body: #"{"request": {"urlPath": "/x"}, "response": {"body": "{{trim request.path}}"}}"#)
            #expect(refused.status == 400)
            #expect(refused.text.contains("UNSUPPORTED_TEMPLATE_HELPER"))
        }
    }

    /// `{{now}}` reads the simulation clock: still until an advance, and an `sse` event's
    /// data sees the time the event is due.
    @Test func nowIsTheSimulationClocksTime() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        try await withRunningServer(configuration) { server in
            try await Self.add(
                server,
                #"{"request": {"urlPath": "/time"}, "response": {"body": "{{now format='epoch'}}", "transformers": ["response-template"]}}"#
            )
            try await Self.add(
                server,
                #"""
                {"request": {"urlPathPattern": "/jobs/[a-z0-9]+/events"}, "response": {"transformers": ["response-template"],
                  "headers": {"X-Job": "{{request.pathSegments.[1]}}"},
                  "sse": {"events": [{"event": "started", "data": {"job": "{{request.pathSegments.[1]}}", "at": "{{now format='epoch'}}"}},
                                     {"event": "done", "data": "{{now format='epoch'}}\nline two", "delayMs": 1000}]}}}
                """#)
            let first = try await server.request("GET", "/time").text
            #expect(try await server.request("GET", "/time").text == first)
            _ = try await server.request("POST", "/__admin/clock/advance", body: #"{"ms":90000}"#)
            let later = try await server.request("GET", "/time").text
            #expect((Int64(later) ?? 0) - (Int64(first) ?? 0) == 90_000)

            let stream = try await server.openStream("/jobs/j7/events")
            try await stream.receive(untilContains: "event: started")
            _ = try await server.request("POST", "/__admin/clock/advance", body: #"{"ms":1000}"#)
            let whole = try await stream.readResponse()
            #expect(whole.headers["X-Job"] == "j7")
            #expect(whole.text.contains(#"data: {"at":"\#(later)","job":"j7"}"#), "\(whole.text)")
            #expect(whole.text.contains("data: \((Int64(later) ?? 0) + 1000)\ndata: line two\n\n"), "\(whole.text)")
        }
    }

    /// `--seed`: two servers with the same seed answer the same requests with the same values.
    @Test func randomValuesRepeatFromRunToRunWithASeed() async throws {
        func answers(seed: UInt64) async throws -> [String] {
            var configuration = MockBackendConfiguration.forTesting()
            configuration.seed = seed
            return try await withRunningServer(configuration) { server in
                try await Self.add(
                    server,
                    #"{"request": {"urlPath": "/id"}, "response": {"body": "{{randomValue type='UUID'}} {{randomInt lower=1 upper=1000000}}", "transformers": ["response-template"]}}"#
                )
                var texts: [String] = []
                for _ in 0..<3 { texts.append(try await server.request("GET", "/id").text) }
                return texts
            }
        }
        let first = try await answers(seed: 42)
        #expect(Set(first).count == 3)
        #expect(try await answers(seed: 42) == first)
        #expect(try await answers(seed: 43) != first)
    }

    @Test func anUnknownHelperIsRefusedNamingItAndTheMapping() async throws {
        try await withRunningServer { server in
            let refused = try await server.request(
                "POST", "/__admin/mappings",
                body:
                    #"{"id": "b3c1a7d2-0000-4000-8000-000000000001", "name": "extract", "request": {"urlPath": "/x"}, "response": {"body": "{{regexExtract request.body '[A-Z]+' 'parts'}}", "transformers": ["response-template"]}}"#
            )
            #expect(refused.status == 400)
            #expect(refused.headers["Content-Type"] == "application/problem+json")
            let problem = try JSONDecoder().decode(ProblemDetails.self, from: Data(refused.body))
            #expect(problem.code == "UNSUPPORTED_TEMPLATE_HELPER")
            #expect(
                problem.detail.hasPrefix(
                    #"mapping "extract" (b3c1a7d2-0000-4000-8000-000000000001): response.body uses the template helper 'regexExtract'"#
                ), "\(problem.detail)")
            // In a header and in event data, too.
            let header = try await server.request(
                "POST", "/__admin/mappings",
                body:
                    #"{"request": {"urlPath": "/x"}, "response": {"headers": {"X-A": "{{base64 request.body}}"}, "transformers": ["response-template"]}}"#
            )
            #expect(header.text.contains("response.headers.X-A uses the template helper 'base64'"), "\(header.text)")
            let event = try await server.request(
                "POST", "/__admin/mappings",
                body:
                    #"{"request": {"urlPath": "/x"}, "response": {"sse": {"events": [{"data": "{{math 1 '+' 2}}"}]}, "transformers": ["response-template"]}}"#
            )
            #expect(event.text.contains("response.sse.events[0].data uses the template helper 'math'"), "\(event.text)")
            #expect(try await server.request("GET", "/__admin/mappings").text.contains(#""total":0"#))
        }
    }

    @Test(
        arguments: [
            (
                #"{"body": "{{#if request.query.a}}open", "transformers": ["response-template"]}"#, "INVALID_TEMPLATE",
                "never closed"
            ),
            (#"{"body": "{{> partial}}", "transformers": ["response-template"]}"#, "INVALID_TEMPLATE", "partial"),
            (
                #"{"body": "x", "transformers": ["json-body-transformer"]}"#, "INVALID_MAPPING",
                "response.transformers[0] names 'json-body-transformer'"
            ),
            (
                #"{"body": "x", "transformers": "response-template"}"#, "INVALID_MAPPING",
                "response.transformers must be an array"
            ),
            (
                #"{"body": "x", "transformerParameters": {"a": 1}}"#, "INVALID_MAPPING",
                "transformerParameters is not supported"
            ),
        ])
    func aBadTemplateOrTransformerIsRefused(_ response: String, _ code: String, _ detail: String) async throws {
        try await withRunningServer { server in
            let refused = try await server.request(
                "POST", "/__admin/mappings", body: #"{"request": {"urlPath": "/x"}, "response": "# + response + "}")
            #expect(refused.status == 400)
            #expect(refused.text.contains(code), "\(refused.text)")
            #expect(refused.text.contains(detail), "\(refused.text)")
        }
    }

    /// A template that would render 100 MB answers 500 with a reason, and the server goes on.
    @Test func aRenderThatWouldBeHugeAnswers500() async throws {
        try await withRunningServer { server in
            let body = String(repeating: "{{request.body}}", count: 100)
            try await Self.add(
                server,
                #"{"name": "huge", "request": {"urlPath": "/huge"}, "response": {"body": "\#(body)", "transformers": ["response-template"]}}"#
            )
            let answer = try await server.request("POST", "/huge", body: String(repeating: "x", count: 1_000_000))
            #expect(answer.status == 500)
            let problem = try JSONDecoder().decode(ProblemDetails.self, from: Data(answer.body))
            #expect(problem.code == "TEMPLATE_RENDER_FAILED")
            #expect(
                problem.detail.contains(#"mapping "huge""#) && problem.detail.contains("16 MiB"), "\(problem.detail)")
            #expect(try await server.request("POST", "/huge", body: "ok").text == String(repeating: "ok", count: 100))
        }
    }

    /// A rendered header value may not end the field early.
    @Test func aHeaderThatRendersALineBreakAnswers500() async throws {
        try await withRunningServer { server in
            try await Self.add(
                server,
                #"{"request": {"urlPath": "/h"}, "response": {"headers": {"X-Name": "{{jsonPath request.body '$.name'}}"}, "transformers": ["response-template"]}}"#
            )
            let answer = try await server.request("POST", "/h", body: #"{"name": "a\r\nSet-Cookie: evil=1"}"#)
            #expect(answer.status == 500)
            #expect(answer.headers["Set-Cookie"] == nil)
            #expect(answer.text.contains("response.headers.X-Name rendered a value with CR, LF or NUL"))
        }
    }

    @Test func aMappingFileWithAnUnknownHelperStopsTheLoadNamingTheFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try
            #"{"request": {"urlPath": "/a"}, "response": {"body": "{{request.path}}", "transformers": ["response-template"]}}"#
            .write(to: directory.appendingPathComponent("a.json"), atomically: true, encoding: .utf8)
        try
            #"{"id": "b-1", "request": {"urlPath": "/b"}, "response": {"body": "{{size request.path}}", "transformers": ["response-template"]}}"#
            .write(to: directory.appendingPathComponent("b.json"), atomically: true, encoding: .utf8)
        do {
            _ = try MappingFiles.load(directory: directory.path)
            Issue.record("the directory loaded")
        } catch {
            #expect(
                error.detail
                    == "b.json: mapping b-1: response.body uses the template helper 'size', which mockbackend does not render (it renders request.*, jsonPath, now, randomValue, randomInt, eq, #if, #unless, #each, #eq, else)"
            )
        }
    }
}
