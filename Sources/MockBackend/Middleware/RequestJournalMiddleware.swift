import MockBackendHTTP

/// Records every request outside `/__admin` in the request journal with the status it got.
struct RequestJournalMiddleware: HTTPMiddleware {
    let journal: RequestJournal

    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        guard !request.path.hasPrefix("/__admin") else { return try next(request) }
        let start = ContinuousClock.now
        do {
            let response = try next(request)
            journal.record(request, status: response.status, duration: .now - start, fault: response.notes["fault"])
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
