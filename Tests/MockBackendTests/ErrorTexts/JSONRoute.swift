import Foundation
import MockBackend
import MockBackendAPI
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// One route that reads a JSON body: its method and path as `openapi/openapi.yaml` names
/// it, and a body it takes.
struct JSONRoute: CustomStringConvertible, Sendable {
    let method: String
    let path: String
    let body: String
    var description: String { "\(method) \(path)" }

    /// Every such route (`JSONContentTypeTests.theDocumentListsTheSameRoutes` holds the
    /// list to the document).
    static let all = [
        JSONRoute(
            method: "POST", path: "/v1/player/legislation/login", body: #"{"username":"demo","password":"demo1234"}"#),
        JSONRoute(
            method: "POST", path: "/api/auth/login", body: #"{"email":"demo@example.com","password":"demo1234"}"#),
        JSONRoute(method: "POST", path: "/api/generations", body: #"{"prompt":"a cat"}"#),
        JSONRoute(method: "POST", path: "/api/sessions/{id}/steer", body: #"{"message":"focus"}"#),
        JSONRoute(method: "POST", path: "/__admin/streams/{stream}/events", body: #"{"data":"x"}"#),
        JSONRoute(method: "POST", path: "/__admin/streams/{stream}/disconnect", body: #"{"graceful":true}"#),
        JSONRoute(method: "POST", path: "/__admin/requests/count", body: #"{"method":"GET"}"#),
        JSONRoute(method: "POST", path: "/__admin/users", body: #"{"username":"ct","password":"pw"}"#),
        JSONRoute(method: "PATCH", path: "/__admin/users/{userId}", body: #"{"tokens":4}"#),
        JSONRoute(method: "POST", path: "/__admin/sessions/{sessionId}/expire", body: #"{"reason":"Kicked"}"#),
        JSONRoute(method: "POST", path: "/__admin/sessions/{sessionId}/terminate", body: #"{"reason":"x"}"#),
        JSONRoute(method: "POST", path: "/__admin/users/{userId}/expire-sessions", body: #"{"reason":"Kicked"}"#),
        JSONRoute(method: "POST", path: "/__admin/users/{userId}/balance", body: #"{"amount":1}"#),
        JSONRoute(method: "PUT", path: "/__admin/clock", body: #"{"speed":2}"#),
        JSONRoute(method: "POST", path: "/__admin/clock/advance", body: #"{"ms":1}"#),
        JSONRoute(method: "POST", path: "/__admin/imports/{jobId}/fail", body: #"{"code":"X"}"#),
        JSONRoute(method: "POST", path: "/__admin/generations/{id}/fail", body: #"{"message":"x"}"#),
        JSONRoute(method: "POST", path: "/__admin/workflows", body: #"{"iterations":2}"#),
        JSONRoute(method: "POST", path: "/__admin/workflows/{id}/events", body: #"{"topic":"review.requested"}"#),
        JSONRoute(
            method: "POST", path: "/__admin/faults", body: #"{"match":{"path":"/nowhere"},"fault":{"kind":"reset"}}"#),
        JSONRoute(
            method: "POST", path: "/__admin/mappings", body: #"{"request":{"urlPath":"/x"},"response":{"status":204}}"#),
        JSONRoute(method: "POST", path: "/__admin/mappings/import", body: #"{"mappings":[]}"#),
        JSONRoute(method: "PUT", path: "/__admin/mappings/{id}", body: #"{"request":{"urlPath":"/y"},"response":{}}"#),
        JSONRoute(method: "POST", path: "/__admin/proxy/sessions/{token}/expire", body: #"{"status":401}"#),
        JSONRoute(method: "POST", path: "/__admin/recordings/start", body: #"{"repeatsAsScenarios":true}"#),
        JSONRoute(method: "POST", path: "/__admin/recordings/snapshot", body: #"{"repeatsAsScenarios":false}"#),
        JSONRoute(method: "PUT", path: "/__admin/scenarios/{name}/state", body: #"{"state":"Started"}"#),
    ]
}

/// An app with something behind every path parameter, and the headers each API asks for.
/// Requests go straight to the app's responder, as `InMemoryApp` sends them, but with the
/// `Content-Type` (or none) the test names.
struct JSONRouteFixture {
    /// One answer: status, headers, body.
    struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }

        func object() throws -> [String: JSONValue] {
            try JSONDecoder().decode([String: JSONValue].self, from: Data(body))
        }
    }

    let app: InMemoryApp
    private let bearer: String
    private let values: [String: String]

    init() throws {
        app = try InMemoryApp.manual { $0.workflowAPIKey = "json-route-key" }
        bearer = try app.generationToken()
        let mapping = try app.answer(
            "POST", "/__admin/mappings", body: #"{"request":{"urlPath":"/m"},"response":{"status":204}}"#
        ).object()
        guard case .string(let mappingID)? = mapping["id"] else { throw CocoaError(.coderValueNotFound) }
        _ = app.answer("GET", "/sse/channels/json-route")
        values = [
            "/api/sessions/{id}": "/api/sessions/s1", "/__admin/workflows/{id}": "/__admin/workflows/s1",
            "{stream}": "channels/json-route", "{userId}": "7000001", "{sessionId}": try app.playerSession().sessionId,
            "{jobId}": try app.uploadCSV(rows: 500),
            "/__admin/generations/{id}": "/__admin/generations/" + (try app.createGeneration(token: bearer)),
            "/__admin/mappings/{id}": "/__admin/mappings/\(mappingID)", "{token}": "t1", "{name}": "none",
        ]
    }

    /// Sends `body` (the route's own by default) with `contentType`, or with no
    /// `Content-Type` at all.
    func send(_ route: JSONRoute, contentType: String?, body: String? = nil) -> Answer {
        var target = route.path
        for (name, value) in values { target = target.replacingOccurrences(of: name, with: value) }
        var headers = HTTPHeaders()
        headers.set("Host", "127.0.0.1")
        headers.set("Authorization", "Bearer \(route.path.hasPrefix("/api/sessions") ? "json-route-key" : bearer)")
        if let contentType { headers.set("Content-Type", contentType) }
        let request = HTTPRequest(
            method: route.method, target: target, headers: headers, body: Array((body ?? route.body).utf8))
        let response = app.app.responder.respond(to: request)
        var bytes: [UInt8] = []
        if case .bytes(let body) = response.body { bytes = body }
        return Answer(status: response.status, headers: response.headers, body: bytes)
    }
}
