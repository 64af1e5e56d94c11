import MockBackendHTTP

/// `GET /sse/channels/{name}`: ad-hoc event streams for clients and tests. A channel
/// exists from its first subscriber or its first admin push
/// (`POST /__admin/streams/channels/{name}/events`), with heartbeats, ids and replay like
/// every stream.
struct ChannelRoutes {
    static let prefix = "channels/"
    let streams: EventStreamRegistry
    let endpoint: SSEEndpoint

    func register(on router: inout Router) {
        let streams = streams
        let endpoint = endpoint
        router.get("/sse/channels/{name}") { request in
            let name = request.pathParameters["name"] ?? ""
            guard !name.isEmpty, !name.contains("/") else {
                throw ProblemDetails.badRequest("A channel name is one path segment.", code: "INVALID_CHANNEL")
            }
            return try endpoint.response(for: request, stream: streams.stream(named: Self.prefix + name))
        }
    }
}
