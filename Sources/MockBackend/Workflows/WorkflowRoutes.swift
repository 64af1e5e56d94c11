import MockBackendAPI
import MockBackendHTTP

/// Workflow sessions (`openapi/openapi.yaml`, tag `workflows`): the list (`WorkflowSummary`,
/// no `mode`), status (`WorkflowStatus`), event stream (`WorkflowEvent`), and pause, resume
/// and steer, each behind the API key.
struct WorkflowRoutes {
    let workflows: WorkflowService
    let endpoint: SSEEndpoint

    /// `POST /api/sessions/{id}/steer`.
    struct SteerRequest: Decodable {
        var message: String
    }

    func register(on router: inout Router) {
        let workflows = workflows
        let endpoint = endpoint
        let authentication = WorkflowAuthentication(key: workflows.settings.apiKey)
        router.get("/api/sessions") { request in
            try authentication.check(request)
            return try .json(workflows.all.map(workflows.summary(of:)))
        }
        router.get("/api/sessions/{id}/status") { request in
            try authentication.check(request)
            return try .json(workflows.status(of: try Self.session(request, workflows)))
        }
        router.get("/api/sessions/{id}/events") { request in
            try authentication.check(request)
            return try endpoint.response(for: request, stream: try Self.session(request, workflows).stream)
        }
        router.post("/api/sessions/{id}/pause") { request in
            try authentication.check(request)
            let session = try Self.session(request, workflows)
            return try Self.accepted(workflows.pause(session), session, "only a running session can pause")
        }
        router.post("/api/sessions/{id}/resume") { request in
            try authentication.check(request)
            let session = try Self.session(request, workflows)
            return try Self.accepted(workflows.resume(session), session, "only a paused session can resume")
        }
        router.post("/api/sessions/{id}/steer") { request in
            try authentication.check(request)
            let session = try Self.session(request, workflows)
            let body = try RequestBody.decode(SteerRequest.self, from: request)
            guard !body.message.trimmingSpaces().isEmpty else {
                throw ProblemDetails.badRequest("Field 'message' must not be empty.", code: "INVALID_BODY")
            }
            return try Self.accepted(
                workflows.steer(session, message: body.message), session, "a completed session takes no steering")
        }
    }

    /// The session named by the path, or 404 `SESSION_NOT_FOUND`.
    static func session(_ request: HTTPRequest, _ workflows: WorkflowService) throws -> WorkflowSession {
        let id = request.pathParameters["id"] ?? ""
        guard let session = workflows.session(id) else {
            throw ProblemDetails(status: 404, code: "SESSION_NOT_FOUND", detail: "No workflow session \(id).")
        }
        return session
    }

    /// 409 `SESSION_STATE_CONFLICT`, saying what the session is.
    static func conflict(
        _ conflict: WorkflowService.Conflict, _ session: WorkflowSession, _ reason: String
    ) -> ProblemDetails {
        let state =
            switch conflict {
            case .complete: "complete"
            case .paused: "paused"
            case .notPaused: "running"
            }
        return ProblemDetails(
            status: 409, code: "SESSION_STATE_CONFLICT", detail: "Session \(session.id) is \(state): \(reason).")
    }

    /// 202 with the session's status, or the conflict.
    private static func accepted(
        _ result: Result<WorkflowStatus, WorkflowService.Conflict>, _ session: WorkflowSession, _ reason: String
    ) throws -> HTTPResponse {
        switch result {
        case .success(let status): return try .json(status, status: 202)
        case .failure(let failure): throw conflict(failure, session, reason)
        }
    }
}
