import MockBackendHTTP

/// `POST/GET/DELETE /__admin/faults`, `DELETE /__admin/faults/{id}`.
struct AdminFaultRoutes {
    let store: FaultStore

    struct NewRule: Decodable {
        var match: FaultRule.Match?
        var fault: FaultSpec
        var times: Int?
        var probability: Double?
    }

    func register(on admin: inout RouterGroup) {
        let store = store
        admin.post("/faults") { request in
            let body = try RequestBody.decode(NewRule.self, from: request)
            try Self.validate(body)
            let rule = store.add(
                FaultRule(
                    id: "", match: body.match ?? FaultRule.Match(), fault: body.fault, times: body.times,
                    probability: body.probability))
            return try .json(rule, status: 201)
        }
        admin.get("/faults") { _ in try .json(store.all) }
        admin.delete("/faults") { _ in try .json(["removed": store.removeAll()]) }
        admin.delete("/faults/{id}") { request in
            let id = request.pathParameters["id"] ?? ""
            guard store.remove(id) else {
                throw ProblemDetails(status: 404, code: "FAULT_NOT_FOUND", detail: "No fault rule \(id).")
            }
            return HTTPResponse(status: 204)
        }
    }

    /// Refuses what a rule cannot mean, naming the field.
    static func validate(_ rule: NewRule) throws {
        func refuse(_ field: String, _ reason: String) -> ProblemDetails {
            ProblemDetails.badRequest("Field '\(field)' \(reason).", code: "INVALID_FAULT")
        }
        let spec = rule.fault
        guard FaultSpec.kinds.contains(spec.kind) else {
            throw refuse("fault.kind", "must be one of \(FaultSpec.kinds.sorted().joined(separator: ", "))")
        }
        if let times = rule.times, times < 1 { throw refuse("times", "must be 1 or more") }
        if let probability = rule.probability, !(0...1).contains(probability) {
            throw refuse("probability", "must be from 0 to 1")
        }
        if let path = rule.match?.path, !path.hasPrefix("/") { throw refuse("match.path", "must start with /") }
        if let status = spec.status, !(200...599).contains(status) { throw refuse("fault.status", "must be 200-599") }
        for (name, value) in [
            ("fault.ms", spec.ms), ("fault.events", spec.events), ("fault.bytes", spec.bytes),
            ("fault.delayMs", spec.delayMs), ("fault.afterEvents", spec.afterEvents),
            ("fault.retryAfter", spec.retryAfter),
        ] where (value ?? 0) < 0 {
            throw refuse(name, "must not be negative")
        }
        // Checked for every kind, so a bad value in a field the kind ignores is still refused.
        if let split = spec.split, split != "crlf", split != "utf8" {
            throw refuse("fault.split", "must be crlf or utf8")
        }
        if let variant = spec.variant, variant != "MALFORMED_RESPONSE_CHUNK", variant != "RANDOM_DATA_THEN_CLOSE" {
            throw refuse("fault.variant", "must be MALFORMED_RESPONSE_CHUNK or RANDOM_DATA_THEN_CLOSE")
        }
        if let kb = spec.kb, kb < 1 { throw refuse("fault.kb", "must be 1 or more") }
        switch spec.kind {
        case "delay", "latency":
            guard spec.ms != nil else { throw refuse("fault.ms", "is required for \(spec.kind)") }
        case "drop_after_events":
            guard spec.events != nil else { throw refuse("fault.events", "is required for drop_after_events") }
        case "drop_after_bytes":
            guard spec.bytes != nil else { throw refuse("fault.bytes", "is required for drop_after_bytes") }
        case "cut_inside_event":
            guard let event = spec.events, event >= 1 else {
                throw refuse("fault.events", "is required for cut_inside_event (the event, from 1)")
            }
            guard spec.bytes != nil else { throw refuse("fault.bytes", "is required for cut_inside_event") }
        case "fragment":
            if let bytes = spec.bytes, bytes < 1 { throw refuse("fault.bytes", "must be 1 or more") }
        case "buffer":
            guard spec.kb != nil else { throw refuse("fault.kb", "is required for buffer") }
        default:
            break
        }
    }
}
