import MockBackendHTTP

/// `GET /__admin/events`: the live feed of what happens in the mock (requests, logins,
/// session endings, faults fired, stream connects and disconnects) as an event stream, with
/// ids, heartbeats and Last-Event-ID replay like every stream. Its own subscribers are not
/// announced on it, and admin requests are not journaled, so watching it adds nothing to it.
struct AdminEventRoutes {
    let events: AdminEventFeed
    let endpoint: SSEEndpoint

    func register(on admin: inout RouterGroup) {
        let (events, endpoint) = (events, endpoint)
        admin.get("/events") { request in
            // Counted as a watcher before it reads the feed, so no request event is left
            // waiting between its replay and its live events (`AdminEventFeed`).
            events.startWatching()
            let response: HTTPResponse
            do {
                response = try endpoint.response(for: request, stream: events.stream)
            } catch {
                events.stopWatching()
                throw error
            }
            guard case .stream(let produce) = response.body else {
                events.stopWatching()
                return response
            }
            var watched = response
            watched.body = .stream { writer in
                writer.onEnd { _ in events.stopWatching() }
                produce(writer)
            }
            return watched
        }
    }
}
