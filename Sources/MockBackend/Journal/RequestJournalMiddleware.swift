import MockBackendHTTP

/// Records every request outside the admin API in the request journal with the status it
/// got and the fault rule that acted on it. The fault rules run inside it (`faults`), and
/// say which rule fired as they hand back the response. Wired on the router's public routes
/// only; it asks `AdminAPI` too, so that it never journals an admin request wherever it runs.
struct RequestJournalMiddleware: HTTPMiddleware {
    let journal: RequestJournal
    let faults: FaultMiddleware

    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        guard !AdminAPI.contains(path: request.path) else { return try next(request) }
        let start = ContinuousClock.now
        do {
            let (response, fault) = try faults.respond(to: request, next: next)
            journal.record(request, status: response.status, duration: .now - start, fault: fault)
            return response
        } catch let error as any HTTPResponseError {
            journal.record(request, status: error.response.status, duration: .now - start)
            throw error
        } catch {
            journal.record(request, status: 500, duration: .now - start)
            throw error
        }
    }
}
