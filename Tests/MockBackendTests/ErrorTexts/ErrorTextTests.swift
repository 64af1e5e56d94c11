import Foundation
import MockBackend
import MockBackendAPI
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// Error texts are written for the developer of a client: whatever is wrong with a request,
/// no answer names a Swift type. Every JSON route gets bodies of the wrong shape and every
/// field of its body the wrong type; the other documented error paths are asked too.
@Suite("Error texts without Swift type names")
struct ErrorTextTests {
    /// What a Swift type name looks like in a text.
    static let typeNames = ["Dictionary<", "Optional<", "Array<", "Swift."]

    /// Bodies that are JSON of another shape, or not JSON.
    static let wrongBodies = ["[]", "[1]", #""text""#, "1", "true", "null", #"{"a":"#, "{}x"]

    /// Values of the wrong type for any field.
    static let wrongValues = ["[]", "{}", #""text""#, "true", "-1", "1e400", "null", "[null]", #"{"x":[]}"#]

    private func expectReadable(_ answer: JSONRouteFixture.Answer, _ what: String) {
        #expect(answer.status >= 400, "\(what) was accepted")
        for name in Self.typeNames {
            #expect(!answer.text.contains(name), "\(what): \(answer.text)")
        }
    }

    @Test func bodiesOfTheWrongShapeNameNoType() throws {
        let fixture = try JSONRouteFixture()
        for route in JSONRoute.all {
            for body in Self.wrongBodies {
                expectReadable(fixture.send(route, contentType: "application/json", body: body), "\(route) \(body)")
            }
        }
    }

    @Test func fieldsOfTheWrongTypeNameNoType() throws {
        let fixture = try JSONRouteFixture()
        for route in JSONRoute.all {
            let fields = try JSONDecoder().decode([String: JSONValue].self, from: Data(route.body.utf8))
            for key in fields.keys {
                for value in Self.wrongValues {
                    var body = fields.mapValues(\.text)
                    body[key] = value
                    let text =
                        "{" + body.map { "\(JSONValue.string($0.key).text):\($0.value)" }.joined(separator: ",") + "}"
                    let answer = fixture.send(route, contentType: "application/json", body: text)
                    for name in Self.typeNames {
                        #expect(!answer.text.contains(name), "\(route) \(text): \(answer.text)")
                    }
                }
            }
        }
    }

    /// The other answers the README's error tables and the document list.
    @Test func theOtherErrorPathsNameNoType() throws {
        let app = try InMemoryApp.manual()
        let token = try app.generationToken()
        let job = try app.uploadCSV(rows: 3)
        let answers: [(String, InMemoryApp.Response)] = [
            ("no route", app.answer("GET", "/nowhere")),
            ("method", app.answer("DELETE", "/health")),
            ("bad path", app.answer("GET", "/..%2f..%2fetc/passwd")),
            ("unknown job", app.answer("GET", "/api/v2/imports/import_nope")),
            ("not multipart", app.answer("POST", "/api/v2/imports", body: "{}")),
            ("no token", app.answer("GET", "/api/tokens/balance")),
            (
                "unknown generation",
                app.answer("GET", "/api/generations/gen_x", headers: ["Authorization": "Bearer \(token)"])
            ),
            ("no workflow key", app.answer("GET", "/api/sessions")),
            ("bad limit", app.answer("GET", "/v1/player/7000001/bets/open?limit=x")),
            ("bad user", app.answer("GET", "/v1/player/x/details")),
            ("ws plain", app.answer("GET", "/ws/progress?jobId=\(job)")),
            (
                "ws key",
                app.answer(
                    "GET", "/ws/progress?jobId=\(job)",
                    headers: [
                        "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                        "Sec-WebSocket-Key": "abc",
                    ])
            ),
            ("bad mapping", app.answer("POST", "/__admin/mappings", body: #"{"request":[],"response":{}}"#)),
            ("bad fault", app.answer("POST", "/__admin/faults", body: #"{"fault":{"kind":"stall","ms":"x"}}"#)),
            ("bad pattern", app.answer("GET", "/__admin/requests?since=yesterday")),
            ("conformance", app.answer("GET", "/conformance/sse/status-then-ok?status=abc")),
        ]
        for (what, answer) in answers {
            #expect(answer.status >= 400, "\(what) was accepted")
            for name in Self.typeNames {
                #expect(!answer.text.contains(name), "\(what): \(answer.text)")
            }
        }
    }
}
