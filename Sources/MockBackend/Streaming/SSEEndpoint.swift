import MockBackendHTTP
import ServerSentEvents

/// Answers a request for an event stream: reads the Last-Event-ID (header, or the
/// `lastEventId` query parameter for clients that cannot set headers), answers 204 when a
/// finished stream has nothing more, and otherwise subscribes the connection.
package struct SSEEndpoint: Sendable {
    /// Default padding comment size; `?padding=` overrides it per request.
    package var padding: Int
    /// Where each stream's connects and disconnects are announced: the admin feed.
    package var events: AdminEventFeed?

    package init(padding: Int = 0, events: AdminEventFeed? = nil) {
        self.padding = padding
        self.events = events
    }

    /// Headers every stream response carries (`openapi/openapi.yaml`, "Event streams").
    package static let headers: HTTPHeaders = [
        "Content-Type": MediaType.eventStream,
        "Cache-Control": "no-cache",
        "X-Accel-Buffering": "no",
    ]

    /// - Parameter audience: the audience the connection belongs to (a player session's
    ///   id), whose end reaches it (`EventStream.endAudience`).
    package func response(for request: HTTPRequest, stream: EventStream, audience: String? = nil) throws
        -> HTTPResponse
    {
        let lastEventID = Self.lastEventID(of: request)
        let padding = try Self.padding(of: request) ?? self.padding
        if stream.hasNothingAfter(lastEventID) {
            return HTTPResponse(status: 204, headers: ["Cache-Control": "no-cache"])
        }
        let events = events
        return .stream(headers: Self.headers) { writer in
            stream.attach(
                writer, request: request, lastEventID: lastEventID, padding: padding, audience: audience,
                events: events)
        }
    }

    package static func lastEventID(of request: HTTPRequest) -> String? {
        request.headers["Last-Event-ID"] ?? request.queryValue("lastEventId")
    }

    /// `?padding=BYTES`, from 0 to 64 KiB.
    static func padding(of request: HTTPRequest) throws -> Int? {
        guard let text = request.queryValue("padding") else { return nil }
        guard let value = Int(text), (0...65536).contains(value) else {
            throw ProblemDetails.badRequest(
                "padding must be a number of bytes from 0 to 65536.", code: "INVALID_PADDING")
        }
        return value
    }
}
