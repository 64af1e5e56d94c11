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
            try endpoint.response(for: request, stream: events.stream)
        }
    }
}
