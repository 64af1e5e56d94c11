import MockBackendHTTP

/// Fires fault rules on the requests they match. `status` and `forbidden` answer in place
/// of the route; `reset`, `empty_response` and `malformed` never reach it; every other kind
/// lets the route answer and shapes its bytes (`FaultShaper`), after any shaping of the
/// route's own (a stub's delays), so the two add up.
///
/// It runs inside the request journal's middleware (`RequestJournalMiddleware`), which it
/// tells which rule fired as a value, with the response.
struct FaultMiddleware: Sendable {
    let store: FaultStore
    let feed: AdminEventFeed

    /// The response to `request`, and the rule that acted on it if one fired.
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws
        -> (response: HTTPResponse, fired: FiredFault?)
    {
        guard !AdminAPI.contains(path: request.path), let rule = store.fire(for: request) else {
            return (try next(request), nil)
        }
        let response = try answer(request, rule.fault, next: next)
        feed.publish(
            .faultFired(.init(rule, method: request.method, target: request.target, connection: request.connectionID)))
        return (response, FiredFault(ruleID: rule.id, fault: rule.fault))
    }

    private func answer(_ request: HTTPRequest, _ fault: Fault, next: (HTTPRequest) throws -> HTTPResponse) throws
        -> HTTPResponse
    {
        switch fault {
        case .status(let status, let body, let retryAfter):
            return Self.statusResponse(status, body: body, retryAfter: retryAfter)
        case .forbidden(let status):
            // The player API's own body, without expiring anything: "403 injection" (or 401).
            return PlayerFailure.sessionExpired(status: status).response
        case .reset, .emptyResponse, .malformed:
            var response = HTTPResponse(status: 200)
            response.shaper = FaultShaper(fault)
            return response
        case .refuseStream(let status, let hang):
            // A stream: an event stream, or a WebSocket, refused before its upgrade. A
            // proxied answer is looked at once it is known.
            return try next(request).mapResolved { response in
                guard response.isStream || response.isWebSocketUpgrade else { return response }
                if hang {
                    var hanging = response
                    hanging.shaper = FaultShaper(fault, webSocket: response.isWebSocketUpgrade)
                    return hanging
                }
                return Self.statusResponse(status ?? 503, body: nil, retryAfter: nil)
            }
        case .contentLengthOnStream:
            return try next(request).mapResolved { response in
                guard response.isStream else { return response }
                var marked = response
                marked.headers.set("Content-Length", "0")
                return marked
            }
        case .maxConcurrentStreams:
            // Acts when a connection starts (`FaultStore.http2Settings`), never on a request.
            return try next(request)
        case .delay, .latency, .dropAfterEvents, .dropAfterBytes, .cutInsideEvent, .fragment, .stall, .mute,
            .blackhole, .buffer, .rstStream, .goAway, .windowStall:
            return try next(request).mapResolved { response in
                var shaped = response
                let shaper = FaultShaper(fault, webSocket: response.isWebSocketUpgrade)
                shaped.shaper = response.shaper.map { ChainedShaper($0, then: shaper) } ?? shaper
                return shaped
            }
        }
    }

    static func statusResponse(_ status: Int, body: JSONValue?, retryAfter: Int?) -> HTTPResponse {
        var response: HTTPResponse
        switch body {
        case .string(let text):
            response = .text(text, status: status)
        case .some(let json):
            response = .json(bytes: Array(json.text.utf8), status: status)
        case nil:
            response = ProblemDetails(status: status, code: "FAULT_INJECTED", detail: "A fault rule answered.").response
        }
        if let retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
        return response
    }
}
