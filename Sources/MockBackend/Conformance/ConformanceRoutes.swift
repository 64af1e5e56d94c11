import MockBackendHTTP
import MockBackendSupport
import ServerSentEvents

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fixed endpoints that reproduce the hard cases of the event-stream spec
/// (web-platform-tests `eventsource/` resources, the LaunchDarkly SSE contract cases),
/// so any client can be checked without writing a stub (`openapi/openapi.yaml`, tag `conformance`).
struct ConformanceRoutes {
    /// Counts requests per `key` for `status-then-ok`.
    let attempts = LockedValue<[String: Int]>([:])

    func register(on router: inout Router) {
        let attempts = attempts
        router.get("/conformance/sse/raw", Self.raw)
        router.get("/conformance/sse/echo-last-event-id", Self.echoLastEventID)
        router.get("/conformance/sse/status-then-ok") { request in try Self.statusThenOK(request, attempts: attempts) }
        router.get("/conformance/sse/reconnect-then-204", Self.reconnectThen204)
        router.get("/conformance/sse/redirect", Self.redirect)
        router.get("/conformance/sse/headers", Self.headers)
    }

    /// `?body=` exact bytes (percent-encoded), `?mime=` content type, `?chunk=` write size,
    /// `?chunkDelay=` ms between writes.
    static func raw(_ request: HTTPRequest) throws -> HTTPResponse {
        var body: [UInt8] = []
        for pair in (request.query ?? "").split(separator: "&") where pair.hasPrefix("body=") {
            guard let bytes = PercentDecoding.decodeBytes(pair.dropFirst(5), plusAsSpace: true) else {
                throw ProblemDetails.badRequest("body is not valid percent-encoding.", code: "INVALID_QUERY")
            }
            body = bytes
        }
        let chunk = try integer(request, "chunk", default: 0, range: 0...1_048_576)
        let delay = try integer(request, "chunkDelay", default: 0, range: 0...60_000)
        let mime = request.queryValue("mime") ?? MediaType.eventStream
        guard MediaType.isValid(mime) else {
            throw ProblemDetails.badRequest(
                "mime must be a media type such as text/event-stream; charset=utf-8.", code: "INVALID_QUERY")
        }
        var response = HTTPResponse(
            status: 200, headers: ["Content-Type": mime, "Cache-Control": "no-cache"], body: .bytes(body))
        if chunk > 0 { response.shaper = ChunkingShaper(size: chunk, delayMilliseconds: delay) }
        return response
    }

    /// Sends `id: <id, default 1>` and, as data, the Last-Event-ID the client sent
    /// (`none` when it sent none), then ends; `retry:` keeps the reconnect quick.
    static func echoLastEventID(_ request: HTTPRequest) throws -> HTTPResponse {
        let retry = try integer(request, "retry", default: 100, range: 0...600_000)
        let received = request.headers["Last-Event-ID"] ?? "none"
        let id = request.queryValue("id") ?? "1"
        // WHATWG HTML §9.2.6: a client ignores an id holding NULL, and CR or LF would end it.
        guard !id.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw ProblemDetails.badRequest("id must be one line without NULL.", code: "INVALID_QUERY")
        }
        let event = ServerSentEvent(data: received, id: id)
        return eventStream(SSEEncoder.encode(event, retry: retry))
    }

    /// The first request for `key` (default: the client's User-Agent) gets `status`
    /// (default 503, with `Retry-After: 0` for 503 and 429); later ones get a stream with
    /// `retry:`, one event `ok` with id 1, and the end.
    static func statusThenOK(_ request: HTTPRequest, attempts: LockedValue<[String: Int]>) throws -> HTTPResponse {
        let status = try integer(request, "status", default: 503, range: 200...599)
        let retry = try integer(request, "retry", default: 100, range: 0...600_000)
        let key = request.queryValue("key") ?? request.headers["User-Agent"] ?? "anonymous"
        let attempt = attempts.withLock { counts -> Int in
            if counts.count > 10_000 { counts.removeAll() }
            counts[key, default: 0] += 1
            return counts[key] ?? 1
        }
        guard attempt > 1 else {
            var response = ProblemDetails(
                status: status, code: "CONFORMANCE_STATUS", detail: "First request for key '\(key)': status \(status)."
            ).response
            if status == 503 || status == 429 { response.headers.set("Retry-After", "0") }
            return response
        }
        return eventStream(SSEEncoder.encode(ServerSentEvent(data: "ok", id: "1"), retry: retry))
    }

    /// Without Last-Event-ID: `retry:`, one event `first` with id 1, and the end. With one:
    /// 204, which must stop the client for good.
    static func reconnectThen204(_ request: HTTPRequest) throws -> HTTPResponse {
        // Checked first: a bad `retry` is refused on the reconnect too, not hidden by the 204.
        let retry = try integer(request, "retry", default: 100, range: 0...600_000)
        if SSEEndpoint.lastEventID(of: request) != nil {
            return HTTPResponse(status: 204, headers: ["Cache-Control": "no-cache"])
        }
        return eventStream(SSEEncoder.encode(ServerSentEvent(data: "first", id: "1"), retry: retry))
    }

    /// Redirects with `code` (301, 302, 303, 307 or 308; default 307) to `to`, a path on
    /// this server (default the echo endpoint).
    static func redirect(_ request: HTTPRequest) throws -> HTTPResponse {
        let code = try integer(request, "code", default: 307, range: 300...399)
        guard [301, 302, 303, 307, 308].contains(code) else {
            throw ProblemDetails.badRequest("code must be 301, 302, 303, 307 or 308.", code: "INVALID_QUERY")
        }
        let target = request.queryValue("to") ?? "/conformance/sse/echo-last-event-id"
        guard target.hasPrefix("/"), !target.hasPrefix("//"), !target.contains(where: \.isNewline) else {
            throw ProblemDetails.badRequest("to must be a path on this server.", code: "INVALID_QUERY")
        }
        return HTTPResponse(status: code, headers: ["Location": target, "Cache-Control": "no-cache"])
    }

    /// One event whose data is a JSON object of the request headers the client sent.
    static func headers(_ request: HTTPRequest) throws -> HTTPResponse {
        var fields: [String: String] = [:]
        for field in request.headers {
            fields[field.name] = fields[field.name].map { $0 + ", " + field.value } ?? field.value
        }
        let data = String(decoding: try JSONCoding.encoder.encode(fields), as: UTF8.self)
        return eventStream(SSEEncoder.encode(ServerSentEvent(type: "headers", data: data, id: "1"), retry: 100))
    }

    /// A chunked event stream that sends `bytes` and ends.
    private static func eventStream(_ bytes: [UInt8]) -> HTTPResponse {
        .stream(headers: SSEEndpoint.headers) { writer in
            writer.write(bytes)
            writer.finish()
        }
    }

    private static func integer(_ request: HTTPRequest, _ name: String, default value: Int, range: ClosedRange<Int>)
        throws -> Int
    {
        guard let text = request.queryValue(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw ProblemDetails.badRequest(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).", code: "INVALID_QUERY"
            )
        }
        return number
    }
}
