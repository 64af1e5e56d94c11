import Foundation
import MockBackendHTTP
import Testing

@testable import MockBackend

/// Renders `template` for a request, at a fixed time, with a seeded random source.
private func render(
    _ template: String, method: String = "GET", target: String = "/", headers: [(String, String)] = [],
    body: String = "", now: Date = Date(timeIntervalSince1970: 1_700_000_000), seed: UInt64 = 1
) throws -> String {
    var fields = HTTPHeaders()
    fields.add("Host", "my.example.com:8080")
    for (name, value) in headers { fields.add(name, value) }
    let request = HTTPRequest(method: method, target: target, headers: fields, body: Array(body.utf8))
    guard let compiled = try ResponseTemplate(template, field: "response.body") else { return template }
    return try compiled.render(
        TemplateRenderInput(
            request: TemplateRequestModel.content(of: request, id: "7d1c-id"), now: now,
            random: IdentifierSource(seed: seed)))
}

/// WireMock's response templating (wiremock.org, "Response Templating"), request by
/// request: the request model, the helpers, the blocks; no socket.
@Suite("Response templates: rendering")
struct ResponseTemplateRenderTests {
    @Test func theRequestModel() throws {
        let target = "/the/entire/path?query1=one&query2=two"
        #expect(try render("Path: {{request.path}}", target: target) == "Path: /the/entire/path")
        #expect(
            try render("First: {{request.path.[0]}}, Last: {{request.path.[2]}}", target: target)
                == "First: the, Last: path")
        #expect(try render("{{request.pathSegments.[1]}} {{request.pathSegments.2}}", target: target) == "entire path")
        #expect(try render("URL: {{{request.url}}}", target: target) == "URL: /the/entire/path?query1=one&query2=two")
        #expect(try render("{{request.path.[0]}}", target: "/") == "")
        #expect(try render("{{request.method}}", method: "PATCH") == "PATCH")
        #expect(
            try render("{{request.scheme}} {{request.host}} {{request.port}} {{request.baseUrl}}")
                == "http my.example.com 8080 http://my.example.com:8080")
        #expect(try render("{{request.requestLine.pathSegments.[0]}}", target: target) == "the")
        #expect(
            try render("Body: {{{request.body}}}", body: "All of the body content") == "Body: All of the body content")
        #expect(try render("{{request.bodyAsBase64}}", body: "hi") == "aGk=")
        #expect(try render("{{request.id}}") == "7d1c-id")
    }

    @Test func oneOrManyValues() throws {
        let target = "/multi-query?things=1&things=2&things=3"
        #expect(try render("{{request.query.things}}", target: target) == "1")
        #expect(try render("{{request.query.things.0}}", target: target) == "1")
        #expect(try render("{{request.query.things.first}}", target: target) == "1")
        #expect(try render("{{request.query.things.1}}", target: target) == "2")
        // WireMock's documented (and odd) negative index: from the one before the last.
        #expect(try render("{{request.query.things.[-1]}}", target: target) == "2")
        #expect(try render("{{request.query.things.last}}", target: target) == "3")
        #expect(
            try render(
                "Multi 1: {{request.query.multi_param.[0]}}, Multi 2: {{request.query.multi_param.[1]}}, Single 1: {{request.query.single-param}}",
                target: "/things?multi_param=one&multi_param=two&single-param=1234")
                == "Multi 1: one, Multi 2: two, Single 1: 1234")
        #expect(try render("{{request.query.multi_param.[0]}}", target: "/things") == "")
        #expect(
            try render(
                "Request ID: {{request.headers.X-Request-Id}}, Awkward named header: {{request.headers.[123$%$^&__why_o_why]}}",
                headers: [("X-Request-Id", "req-id-1234"), ("123$%$^&__why_o_why", "foundit")])
                == "Request ID: req-id-1234, Awkward named header: foundit")
        #expect(try render("{{request.headers.case-key-123}}", headers: [("Case-KEY-123", "foundit")]) == "foundit")
        #expect(
            try render(
                "{{request.cookies.multi}}, {{request.cookies.multi.[0]}}, {{request.cookies.multi.[1]}}",
                headers: [("Cookie", "multi=one; multi=two")]) == "one, one, two")
        #expect(
            try render("{{#each request.query.things as |thing|}}thing: {{{thing}}};{{/each}}", target: target)
                == "thing: 1;thing: 2;thing: 3;")
    }

    @Test func jsonPath() throws {
        let body = #"{"outer": {"inner": "Stuff"}, "a": {"test": "look at my 'single quotes'"}}"#
        #expect(try render("{{jsonPath request.body '$.outer.inner'}}", body: body) == "Stuff")
        #expect(try render("{{jsonPath request.body '$.outer'}}", body: body) == #"{"inner":"Stuff"}"#)
        #expect(try render("{{jsonPath request.body '$.size' default='M'}}", body: body) == "M")
        #expect(try render("{{jsonPath request.body '$.b'}}", body: #"{"a": "1"}"#) == "")
        // No HTML escaping, as WireMock 3's default.
        #expect(
            try render(#"{"test": "{{jsonPath request.body '$.a.test'}}"}"#, body: body)
                == #"{"test": "look at my 'single quotes'"}"#)
        #expect(
            try render(
                "{{#each (jsonPath request.body '$.things') as |thing|}}\nthing: {{{thing.id}}}{{/each}}",
                body: #"{"things": [{"id": 1}, {"id": 2}, {"id": 3}]}"#) == "\nthing: 1\nthing: 2\nthing: 3")
        #expect(
            try render(
                "{{#each (jsonPath request.body '$.things') as |value key|}}\n{{{key}}}={{{value}}}{{/each}}",
                body: #"{"things": {"one": 1, "two": 2, "three": 3}}"#
            ).split(separator: "\n").sorted()
                == ["one=1", "three=3", "two=2"])
        #expect(
            try render(
                "{{jsonPath request.body '$.items[?(@.kind == \"b\")].id'}}",
                body: #"{"items": [{"kind": "a", "id": 1}, {"kind": "b", "id": 2}]}"#) == "[2]")
    }

    @Test func iterationVariablesAndConditions() throws {
        let things = #"{"things": ["a", "b", "c"]}"#
        #expect(
            try render(
                "[{{#each (jsonPath request.body '$.things') as |thing|}}{{#if @last}}{\"thing\":\"{{{thing}}}\"}{{else}}{\"thing\":\"{{{thing}}}\"},{{/if}}{{/each}}]",
                body: things) == #"[{"thing":"a"},{"thing":"b"},{"thing":"c"}]"#)
        #expect(
            try render(
                "{{#each (jsonPath request.body '$.things') as |thing|}}{{@index}}: {{thing}} {{/each}}", body: things)
                == "0: a 1: b 2: c ")
        #expect(
            try render(
                "{{#each (jsonPath request.body '$.things')}}{{#if @first}}first {{/if}}{{this}}{{/each}}", body: things
            ) == "first abc")
        #expect(try render("{{#each request.query.none}}x{{else}}empty{{/each}}") == "empty")
        let chain =
            "{{#if request.query.a}}A{{else if request.query.b}}B{{else if request.query.c}}C{{else}}D{{/if}}"
        #expect(try render(chain, target: "/?b=1&c=1") == "B")
        #expect(try render(chain, target: "/?c=1") == "C")
        #expect(try render(chain, target: "/") == "D")
        #expect(try render("{{#unless request.query.hide}}shown{{/unless}}") == "shown")
        #expect(try render("{{#unless request.query.hide}}shown{{/unless}}", target: "/?hide=1") == "")
        let eq = "{{#eq request.query.name 'Dan'}}dan{{else eq request.query.name 'Mark'}}mark{{else}}anon{{/eq}}"
        #expect(try render(eq, target: "/?name=Dan") == "dan")
        #expect(try render(eq, target: "/?name=Mark") == "mark")
        #expect(try render(eq, target: "/?name=Zoe") == "anon")
        #expect(
            try render("{{#eq request.headers.X-Thing.[0] '1'}}ONE{{else}}MANY{{/eq}}", headers: [("X-Thing", "1")])
                == "ONE")
        #expect(try render("{{#if (eq request.method 'POST')}}post{{/if}}", method: "POST") == "post")
        #expect(try render("{{{eq 5 5 yes='y' no='n'}}}") == "y")
        #expect(try render("{{eq 5 '6'}}") == "false")
    }

    @Test func nowOnTheGivenClock() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z
        #expect(try render("{{now}}", now: now) == "2023-11-14T22:13:20Z")
        #expect(try render("{{now offset='3 days'}}", now: now) == "2023-11-17T22:13:20Z")
        #expect(try render("{{now offset='-24 seconds'}}", now: now) == "2023-11-14T22:12:56Z")
        #expect(try render("{{now offset='10 years' format='yyyy-MM-dd'}}", now: now) == "2033-11-14")
        #expect(try render("{{now offset='now +1 months' format='yyyy-MM'}}", now: now) == "2023-12")
        #expect(
            try render("{{now timezone='Australia/Sydney' format='yyyy-MM-dd HH:mm:ssZ'}}", now: now)
                == "2023-11-15 09:13:20+1100")
        #expect(try render("{{now timezone='Australia/Sydney'}}", now: now) == "2023-11-15T09:13:20+11:00")
        #expect(try render("{{now format='epoch'}}", now: now) == "1700000000000")
        #expect(try render("{{now offset='2 years' format='unix'}}", now: now) == "1763158400")
    }

    @Test func randomValuesRepeatWithTheSeed() throws {
        let template =
            "{{randomValue length=33 type='ALPHANUMERIC'}} {{randomValue length=12 type='ALPHANUMERIC' uppercase=true}} {{randomValue length=10 type='NUMERIC'}} {{randomValue length=32 type='HEXADECIMAL' uppercase=true}} {{randomValue type='UUID'}} {{randomInt lower=5 upper=9}} {{randomValue}}"
        let first = try render(template, seed: 7)
        #expect(try render(template, seed: 7) == first)
        #expect(try render(template, seed: 8) != first)
        let parts = first.split(separator: " ").map(String.init)
        #expect(parts[0].count == 33 && parts[0].allSatisfy { $0.isLowercase || $0.isNumber })
        #expect(parts[1].count == 12 && parts[1].allSatisfy { $0.isUppercase || $0.isNumber })
        #expect(parts[2].count == 10 && parts[2].allSatisfy(\.isNumber))
        #expect(parts[3].wholeMatch(of: /[0-9A-F]{32}/) != nil)
        #expect(parts[4].wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil)
        #expect((5...9).contains(Int(parts[5]) ?? 0))
        #expect(parts[6].count == 36)
        let ints = try (0..<200).map { try render("{{randomInt lower=-2 upper=2}}", seed: UInt64($0)) }
        #expect(Set(ints) == ["-2", "-1", "0", "1", "2"])
    }

    @Test func handlebarsSyntaxBesideTheHelpers() throws {
        #expect(try render("a {{! a comment }}b{{!-- {{not a tag}} --}}c") == "a bc")
        #expect(try render("x  {{~request.method~}}  y") == "xGETy")
        #expect(try render(#"\{{request.method}} {{request.method}}"#) == "{{request.method}} GET")
        #expect(try render("{{'literal'}} {{42}}") == "literal 42")
        #expect(try render("{{#request.query}}{{x}}{{/request.query}}", target: "/?x=7") == "7")
        #expect(try render("{{^request.query.x}}none{{/request.query.x}}") == "none")
        #expect(
            try render("{{#each request.path}}{{../request.method}}{{@root.request.method}}{{/each}}", target: "/a")
                == "GETGET")
        #expect(try render("{{missing.thing}}|{{request.nothing}}") == "|")
        #expect(try render("no tags at all") == "no tags at all")
    }

    /// A render that would write without end stops, with a reason, instead.
    @Test func aRenderThatWouldWriteTooMuchStops() throws {
        let items = "[" + Array(repeating: "1", count: 600).joined(separator: ",") + "]"
        let body = #"{"items": \#(items)}"#
        // 600 × 600 passes of 100 bytes: 36 MB.
        let pass = String(repeating: "xy", count: 50)
        let template =
            "{{#each (jsonPath request.body '$.items')}}{{#each (jsonPath @root.request.body '$.items')}}\(pass){{/each}}{{/each}}"
        #expect(throws: TemplateRenderError.self) { try render(template, body: body) }
        do {
            _ = try render(
                String(repeating: "{{request.body}}", count: 20), body: String(repeating: "b", count: 1_000_000))
            Issue.record("a 20 MB render went through")
        } catch let error as TemplateRenderError {
            #expect(error.reason.contains("response.body would write more than 16 MiB"), "\(error.reason)")
        }
        // The same template over a small body renders.
        #expect(try render(template, body: #"{"items": [1, 2]}"#) == String(repeating: pass, count: 4))
    }
}
