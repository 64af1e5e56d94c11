import MockBackendHTTP

/// `GET|POST /__admin/workflows`, `POST /__admin/workflows/{id}/events|complete`: workflow
/// sessions driven by hand or by a test. No API key: admin routes have their own guard.
struct AdminWorkflowRoutes {
    let workflows: WorkflowService

    func register(on admin: inout RouterGroup) {
        let workflows = workflows
        admin.get("/workflows") { _ in try .json(workflows.all.map(workflows.adminSnapshot(of:))) }
        admin.post("/workflows") { request in
            let seed = try Self.seed(
                from: RequestBody.decode(WorkflowCreateRequest.self, from: request), workflows.settings)
            guard let session = workflows.create(seed) else {
                throw ProblemDetails(
                    status: 409, code: "SESSION_EXISTS", detail: "A workflow session \(seed.id) already exists.")
            }
            return try .json(workflows.status(of: session), status: 201)
        }
        admin.post("/workflows/{id}/events") { request in
            let session = try WorkflowRoutes.session(request, workflows)
            let body = try RequestBody.decode(WorkflowEventRequest.self, from: request)
            guard !body.topic.isEmpty, !body.topic.contains(where: \.isNewline) else {
                throw ProblemDetails.badRequest("Field 'topic' must be a non-empty single line.", code: "INVALID_BODY")
            }
            switch workflows.publishEvent(session, topic: body.topic, payload: try body.fields()) {
            case .success(let (id, event)):
                return try .json(
                    WorkflowEventPublished(
                        session: session.id, eventId: id, topic: event.topic, ts: event.ts, payload: event.payload))
            case .failure(let conflict):
                throw WorkflowRoutes.conflict(conflict, session, "its stream has ended")
            }
        }
        admin.post("/workflows/{id}/complete") { request in
            let session = try WorkflowRoutes.session(request, workflows)
            switch workflows.complete(session) {
            case .success(let status): return try .json(status)
            case .failure(let conflict): throw WorkflowRoutes.conflict(conflict, session, "it has already completed")
            }
        }
    }

    /// The session to create: the request's fields, validated, over the defaults.
    static func seed(from body: WorkflowCreateRequest, _ settings: WorkflowSettings) throws -> Scenario.WorkflowSeed {
        var seed = settings.defaults
        seed.id = ""
        if let id = body.id {
            guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy(Self.isIDByte), id != ".", id != ".." else {
                throw invalid("Field 'id' must be 1 to 64 letters, digits, '.', '_' or '-'.")
            }
            seed.id = id
        }
        if let iterations = body.iterations {
            guard (1...10_000).contains(iterations) else {
                throw invalid("Field 'iterations' must be from 1 to 10000.")
            }
            seed.iterations = iterations
        }
        if let hats = body.hats {
            guard !hats.isEmpty, hats.count <= 64 else { throw invalid("Field 'hats' must hold 1 to 64 hats.") }
            for (index, hat) in hats.enumerated() where hat.isEmpty || hat.contains(where: \.isNewline) {
                throw invalid("Field 'hats.[\(index)]' must be a non-empty single line.")
            }
            seed.hats = hats
        }
        if let pace = body.paceSeconds {
            guard pace.isFinite, pace >= 0.001, pace <= 86_400 else {
                throw invalid("Field 'paceSeconds' must be from 0.001 to 86400.")
            }
            seed.paceSeconds = pace
        }
        return seed
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    private static func invalid(_ detail: String) -> ProblemDetails {
        ProblemDetails.badRequest(detail, code: "INVALID_BODY")
    }
}

extension WorkflowEventRequest {
    /// The payload's fields; 400 when it is not an object, or not the topic's.
    func fields() throws -> [String: JSONValue] {
        let fields: [String: JSONValue]
        switch payload {
        case nil, .null?: fields = [:]
        case .object(let object)?: fields = object
        default: throw ProblemDetails.badRequest("Field 'payload' must be a JSON object.", code: "INVALID_BODY")
        }
        do {
            _ = try WorkflowEvent(topic: topic, ts: 0, payload: fields).typedPayload()
        } catch let error as DecodingError {
            throw ProblemDetails.badRequest(
                "Field 'payload' is not what topic '\(topic)' carries: \(RequestBody.describe(error))",
                code: "INVALID_BODY")
        }
        return fields
    }
}
