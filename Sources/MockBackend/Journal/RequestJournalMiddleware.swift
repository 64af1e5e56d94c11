import MockBackendHTTP

/// Records every request outside the admin API in the request journal with the status it
/// got and the fault rule that acted on it. The fault rules run inside it (`faults`), and
/// say which rule fired as they hand back the response. Wired on the router's public routes
/// only; it asks `AdminAPI` too, so that it never journals an admin request wherever it runs.
struct RequestJournalMiddleware: HTTPMiddleware {
    let journal: RequestJournal
    let faults: FaultMiddleware
    /// How the secrets of proxied requests are shown.
    let redaction: SecretRedaction
    /// Whether every request is shown redacted (proxy mode: a token's expired answers are
    /// given here, not upstream), not only those that went upstream.
    let redactsAll: Bool

    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        guard !AdminAPI.contains(path: request.path) else { return try next(request) }
        let start = ContinuousClock.now
        let shown = redactsAll ? redaction.redacting(request) : request
        do {
            let (response, fault) = try faults.respond(to: request, next: next)
            // A proxied answer is recorded once it is known.
            return response.mapResolved { [journal, redaction, redactsAll] resolved in
                let redacts = redactsAll || resolved.relay != nil
                var resolved = resolved
                var body: [UInt8]? = []
                if case .bytes(let bytes) = resolved.body { body = bytes }
                if case .stream = resolved.body { body = nil }
                let capture = ResponseCapture(
                    status: resolved.status,
                    headers: redacts ? redaction.redacting(resolved.headers) : resolved.headers,
                    scheme: request.scheme, httpVersion: request.version.description,
                    body: body)
                if case .stream(let produce) = resolved.body {
                    resolved.body = .stream { sink in produce(CapturingSink(sink, capture: capture)) }
                }
                journal.record(
                    resolved.relay == nil ? shown : redaction.redacting(request), status: resolved.status,
                    duration: .now - start, fault: fault, relay: resolved.relay, capture: capture)
                return resolved
            }
        } catch let error as any HTTPResponseError {
            journal.record(shown, status: error.response.status, duration: .now - start)
            throw error
        } catch {
            journal.record(shown, status: 500, duration: .now - start)
            throw error
        }
    }
}
