import MockBackendAPI
import MockBackendHTTP

/// WireMock's scenario routes: `GET /__admin/scenarios`, `POST /__admin/scenarios/reset`
/// (every scenario to `Started`), `PUT /__admin/scenarios/{name}/state` `{"state"}` (every
/// copy, or one scope's with `?scope=VALUE`).
struct AdminScenarioRoutes {
    let stubs: StubStore

    func register(on admin: inout RouterGroup) {
        let stubs = stubs
        admin.get("/scenarios") { _ in try .json(ScenarioList(scenarios: stubs.scenarios())) }
        admin.post("/scenarios/reset") { _ in
            stubs.resetScenarios()
            return try .json(ScenarioList(scenarios: stubs.scenarios()))
        }
        admin.put("/scenarios/{name}/state") { request in
            let name = request.pathParameters["name"] ?? ""
            let body = try RequestBody.decode(ScenarioStateRequest.self, from: request)
            guard let state = body.state, !state.isEmpty else {
                throw ProblemDetails.badRequest(
                    "Field 'state' is required: a state of the scenario.", code: "INVALID_BODY")
            }
            try stubs.setScenario(name, to: state, scope: request.queryValue("scope"))
            return try .json(ScenarioList(scenarios: stubs.scenarios().filter { $0.name == name }))
        }
    }
}

/// `{"state": "Next"}`.
struct ScenarioStateRequest: Codable, Sendable {
    var state: String?
}
