import MockBackendHTTP

/// Fires fault rules on the requests they match. `status` and `forbidden` answer in place
/// of the route; `reset`, `empty_response` and `malformed` never reach it; every other kind
/// lets the route answer and shapes its bytes (`FaultShaper`). Admin routes are never hit.
struct FaultMiddleware: HTTPMiddleware {
    let store: FaultStore
    let feed: AdminEventFeed

    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        guard !AdminAPI.contains(path: request.path), let rule = store.fire(for: request) else {
            return try next(request)
        }
        var response = try answer(request, rule.fault, next: next)
        response.notes["fault"] = "\(rule.fault.kind) \(rule.id)"
        feed.publish(
            .faultFired,
            [
                "fault": .string(rule.id), "kind": .string(rule.fault.kind), "method": .string(request.method),
                "target": .string(request.target), "connection": .integer(Int(request.connectionID)),
            ])
        return response
    }

    private func answer(_ request: HTTPRequest, _ spec: FaultSpec, next: (HTTPRequest) throws -> HTTPResponse) throws
        -> HTTPResponse
    {
        switch spec.kind {
        case "status":
            return Self.statusResponse(spec)
        case "forbidden":
            // The player API's own body, without expiring anything: "403 injection".
            return PlayerFailure.forbidden("Session expired").response
        case "reset", "empty_response", "malformed":
            var response = HTTPResponse(status: 200)
            response.shaper = FaultShaper(Self.behavior(spec))
            return response
        case "refuse_stream":
            var response = try next(request)
            guard response.isStream else { return response }
            if spec.hang == true {
                response.shaper = FaultShaper(.hangBeforeHead)
                return response
            }
            return Self.statusResponse(spec)
        default:
            var response = try next(request)
            response.shaper = FaultShaper(Self.behavior(spec))
            return response
        }
    }

    static func statusResponse(_ spec: FaultSpec) -> HTTPResponse {
        let status = spec.status ?? 503
        var response: HTTPResponse
        switch spec.body {
        case .string(let text):
            response = .text(text, status: status)
        case .some(let json):
            response = .json(bytes: Array(json.text.utf8), status: status)
        case nil:
            response = ProblemDetails(status: status, code: "FAULT_INJECTED", detail: "A fault rule answered.").response
        }
        if let retryAfter = spec.retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
        return response
    }

    /// The byte-level behaviour of a validated spec.
    static func behavior(_ spec: FaultSpec) -> FaultShaper.Behavior {
        let reset = spec.reset ?? false
        switch spec.kind {
        case "delay": return .delay(ms: spec.ms ?? 0)
        case "latency": return .latency(ms: spec.ms ?? 0)
        case "drop_after_events": return .dropAfterEvents(spec.events ?? 0, reset: reset)
        case "drop_after_bytes": return .dropAfterBytes(spec.bytes ?? 0, reset: reset)
        case "cut_inside_event":
            return .cutInsideEvent(event: spec.events ?? 1, afterBytes: spec.bytes ?? 0, reset: reset)
        case "fragment":
            let delay = spec.delayMs ?? 20
            switch spec.split {
            case "crlf": return .fragmentCRLF(delayMs: delay)
            case "utf8": return .fragmentUTF8(delayMs: delay)
            default: return .fragmentBytes(size: spec.bytes ?? 1, delayMs: delay)
            }
        case "stall": return .stall(afterEvents: spec.afterEvents ?? 0, ms: spec.ms ?? FaultShaper.forever)
        case "mute": return .mute(ms: spec.ms ?? FaultShaper.forever)
        case "buffer": return .buffer(bytes: (spec.kb ?? 16) * 1024)
        case "reset": return .reset
        case "empty_response": return .emptyResponse
        case "malformed": return spec.variant == "RANDOM_DATA_THEN_CLOSE" ? .randomDataThenClose : .malformedChunk
        default: return .delay(ms: 0)
        }
    }
}
