import MockBackendAPI
import MockBackendHTTP
import ServerSentEvents

/// The stream admin API: list streams and their subscribers, read the stream journal,
/// push an event into a live stream, drop its connections.
struct AdminStreamRoutes {
    let streams: EventStreamRegistry
    /// The HTTP/2 frames that ended exchanges, shown with the records of theirs.
    let http2Endings: HTTP2EndingLog

    func register(on admin: inout RouterGroup) {
        let (streams, http2Endings) = (streams, http2Endings)
        admin.get("/streams") { _ in try .json(streams.all.map(\.snapshot)) }
        admin.get("/streams/connections") { request in
            var records = streams.journal.snapshots(stream: request.queryValue("stream"))
            for index in records.indices {
                records[index].http2Endings = http2Endings.endings(exchange: records[index].connection)
            }
            return try .json(records)
        }
        admin.post("/streams/{stream...}/events") { request in
            let name = request.pathParameters["stream"] ?? ""
            let push = try RequestBody.decode(StreamPushRequest.self, from: request)
            let stream = try Self.stream(named: name, in: streams)
            try Self.validate(push)
            if stream.isRelay { return try .json(Self.inject(push, into: stream), status: 200) }
            if let flood = try Self.flood(push, into: stream, patience: streams.floodPatience) { return flood }
            return try .json(Self.push(push, into: stream), status: 200)
        }
        admin.post("/streams/{stream...}/disconnect") { request in
            let name = request.pathParameters["stream"] ?? ""
            let options = try RequestBody.decode(StreamDisconnectRequest.self, from: request)
            let stream = try Self.stream(named: name, in: streams)
            let count = stream.disconnect(connection: options.connection, mode: try Self.mode(of: options))
            return try .json(StreamDisconnect(stream: name, disconnected: count))
        }
    }

    /// An existing stream, or a channel (created on first use); anything else is 404.
    static func stream(named name: String, in streams: EventStreamRegistry) throws -> EventStream {
        if let stream = streams.existingStream(named: name) { return stream }
        if name.hasPrefix(ChannelRoutes.prefix), name.count > ChannelRoutes.prefix.count {
            return streams.stream(named: name)
        }
        throw ProblemDetails(
            status: 404, code: "STREAM_NOT_FOUND",
            detail:
                "No stream named '\(name)'; GET /__admin/streams lists them, and channels/<name> streams are created on use."
        )
    }

    /// A push with a `count` above one: a flood at the subscribers' pace (`EventFlood`). The
    /// answer's head goes out at once and its JSON body once the last copy is logged and
    /// written to the subscribers; the flood stops early if this request's connection
    /// closes. Nil for any other push (a bare `retry` ignores `count`, as before).
    private static func flood(_ push: StreamPushRequest, into stream: EventStream, patience: Duration) throws
        -> HTTPResponse?
    {
        guard let count = push.count, count > 1, let data = push.data else { return nil }
        let event = StreamEvent(type: push.event, data: data, id: push.id)
        return .stream(headers: ["Content-Type": MediaType.json]) { writer in
            let flood = EventFlood(
                stream: stream, event: event, count: count, retry: push.retry, patience: patience,
                isCancelled: { writer.isClosed }
            ) { last in
                let result = StreamPush(stream: stream.name, id: last?.wireID, delivered: stream.subscriberCount)
                if let body = try? JSONCoding.encoder.encode(result) { writer.write(Array(body)) }
                writer.finish()
            }
            flood.start()
        }
    }

    /// Any push but a flood (`flood` takes those first).
    private static func push(_ push: StreamPushRequest, into stream: EventStream) throws -> StreamPush {
        guard let data = push.data else {
            guard let retry = push.retry else {
                throw ProblemDetails.badRequest(
                    "Field 'data' is required unless 'retry' is given.", code: "INVALID_BODY")
            }
            let count = stream.advertiseRetry(retry, toConnection: push.connection)
            return StreamPush(stream: stream.name, id: nil, delivered: count)
        }
        let event = StreamEvent(type: push.event, data: data, id: push.id)
        if let connection = push.connection {
            guard stream.send(event, retry: push.retry, toConnection: connection) else {
                throw ProblemDetails(
                    status: 404, code: "CONNECTION_NOT_FOUND",
                    detail: "No subscriber of '\(stream.name)' on connection \(connection).")
            }
            return StreamPush(stream: stream.name, id: push.id, delivered: 1)
        }
        let logged = stream.publish(event, retry: push.retry)
        return StreamPush(stream: stream.name, id: logged.wireID, delivered: stream.subscriberCount)
    }

    /// A push into a relayed stream (`proxy/<path>`): written between its upstream's events,
    /// with no `id:` unless the push gives one, and not logged (there is no replay: the
    /// upstream resumes).
    private static func inject(_ push: StreamPushRequest, into stream: EventStream) throws -> StreamPush {
        guard let data = push.data else {
            throw ProblemDetails.badRequest(
                "A proxied stream takes pushes with 'data' only: its 'retry' is its upstream's.", code: "INVALID_BODY")
        }
        guard (push.count ?? 1) == 1 else {
            throw ProblemDetails.badRequest(
                "A proxied stream takes one event per push: its pace is its upstream's.", code: "INVALID_BODY")
        }
        let event = StreamEvent(type: push.event, data: data, id: push.id)
        let delivered = stream.inject(event, retry: push.retry, toConnection: push.connection)
        if let connection = push.connection, delivered == 0 {
            throw ProblemDetails(
                status: 404, code: "CONNECTION_NOT_FOUND",
                detail: "No subscriber of '\(stream.name)' on connection \(connection).")
        }
        return StreamPush(stream: stream.name, id: push.id, delivered: delivered)
    }

    /// Checks every field whatever the request does, so a bad field is never ignored.
    private static func validate(_ push: StreamPushRequest) throws {
        if let retry = push.retry { try validate(retry: retry) }
        if let event = push.event, event.isEmpty || event.contains(where: \.isNewline) {
            throw ProblemDetails.badRequest("Field 'event' must be a non-empty single line.", code: "INVALID_BODY")
        }
        let count = push.count ?? 1
        guard (1...1_000_000).contains(count) else {
            throw ProblemDetails.badRequest("Field 'count' must be from 1 to 1000000.", code: "INVALID_BODY")
        }
        if count > 1, push.id != nil || push.connection != nil {
            throw ProblemDetails.badRequest(
                "Field 'count' cannot be combined with 'id' or 'connection'.", code: "INVALID_BODY")
        }
    }

    /// How the connections end; `reset` and `graceful` together are refused.
    private static func mode(of options: StreamDisconnectRequest) throws -> DisconnectMode {
        guard let mode = options.mode else {
            throw ProblemDetails.badRequest(
                "Fields 'reset' and 'graceful' cannot both be true: a graceful end sends the end of the body, a reset sends RST.",
                code: "INVALID_BODY")
        }
        return mode
    }

    private static func validate(retry: Int) throws {
        guard retry >= 0 else {
            throw ProblemDetails.badRequest(
                "Field 'retry' must be a number of milliseconds, 0 or more.", code: "INVALID_BODY")
        }
    }
}
