import MockBackendHTTP

/// `POST/GET/DELETE /__admin/faults`, `DELETE /__admin/faults/{id}`.
struct AdminFaultRoutes {
    let store: FaultStore

    func register(on admin: inout RouterGroup) {
        let store = store
        admin.post("/faults") { request in
            let body: NewFaultRule
            do {
                body = try RequestBody.decode(NewFaultRule.self, from: request)
            } catch let error as FaultDefinitionError {
                throw ProblemDetails.badRequest("Field '\(error.field)' \(error.reason).", code: "INVALID_FAULT")
            }
            try Self.validate(body)
            let rule = store.add(
                FaultRule(
                    id: "", match: body.match ?? FaultRule.Match(), fault: body.fault, times: body.times,
                    probability: body.probability))
            return try .json(rule, status: 201)
        }
        admin.get("/faults") { _ in try .json(store.all) }
        admin.delete("/faults") { _ in try .json(FaultsRemoved(removed: store.removeAll())) }
        admin.delete("/faults/{id}") { request in
            let id = request.pathParameters["id"] ?? ""
            guard store.remove(id) else {
                throw ProblemDetails(status: 404, code: "FAULT_NOT_FOUND", detail: "No fault rule \(id).")
            }
            return HTTPResponse(status: 204)
        }
    }

    /// Refuses what a rule cannot mean, naming the field. The fault itself was checked as
    /// it was decoded (`Fault+Coding.swift`).
    static func validate(_ rule: NewFaultRule) throws {
        func refuse(_ field: String, _ reason: String) -> ProblemDetails {
            ProblemDetails.badRequest("Field '\(field)' \(reason).", code: "INVALID_FAULT")
        }
        if let times = rule.times, times < 1 { throw refuse("times", "must be 1 or more") }
        if let probability = rule.probability, !(0...1).contains(probability) {
            throw refuse("probability", "must be from 0 to 1")
        }
        if let path = rule.match?.path, !path.hasPrefix("/") { throw refuse("match.path", "must start with /") }
    }
}
