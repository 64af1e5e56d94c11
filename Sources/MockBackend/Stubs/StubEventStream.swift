import ServerSentEvents

/// mockbackend's own `response.sse`: an event stream written event by event, each after its
/// `delayMs`, then ended (`"close": true`, the default) or left open (`"close": false`).
///
/// ```json
/// {"events": [{"event": "progress", "data": {"pct": 50}, "id": "1", "delayMs": 200}],
///  "retry": 3000, "close": true}
/// ```
struct StubEventStream: Sendable {
    /// One write of the body: the bytes of one event (or of the `retry:` line), sent after
    /// a pause of `delayMilliseconds` counted from the write before it.
    struct Part: Sendable, Equatable {
        var delayMilliseconds: Int
        var bytes: [UInt8]
    }

    var parts: [Part]
    var close: Bool

    /// Whatever is queued behind a pause counts against the server's 1 MiB bound for a
    /// stream's unsent bytes, so a stub stays well under it.
    static let maximumBytes = 512 * 1024

    /// Reads the `sse` object at `path`.
    static func parse(_ value: JSONValue, path: String) throws(StubMappingError) -> StubEventStream {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(known: ["events", "retry", "close"])
        var parts: [Part] = []
        if let retry = try reader.integer("retry") {
            guard retry >= 0 else { throw StubMappingError(field: reader.field("retry"), "must be 0 or more") }
            parts.append(Part(delayMilliseconds: 0, bytes: SSEEncoder.retry(milliseconds: retry)))
        }
        for (index, item) in (try reader.array("events") ?? []).enumerated() {
            parts.append(try event(item, path: reader.field("events") + "[\(index)]"))
        }
        let size = parts.reduce(0) { $0 + $1.bytes.count }
        guard size <= maximumBytes else {
            throw StubMappingError(field: path, "is \(size) bytes once encoded; at most \(maximumBytes) are allowed")
        }
        return StubEventStream(parts: parts, close: try reader.bool("close") ?? true)
    }

    private static func event(_ value: JSONValue, path: String) throws(StubMappingError) -> Part {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(known: ["event", "data", "id", "delayMs"])
        let type = try reader.string("event")
        if let type, type.isEmpty || type.contains(where: \.isNewline) {
            throw StubMappingError(field: reader.field("event"), "must be a non-empty single line")
        }
        guard let data = reader.value("data") else {
            throw StubMappingError(field: reader.field("data"), "is required (a string, or any JSON)")
        }
        var id: String?
        switch reader.value("id") {
        case nil: id = nil
        case .string(let text): id = text
        case .integer(let number): id = String(number)
        default: throw StubMappingError(field: reader.field("id"), "must be a string")
        }
        // WHATWG HTML §9.2.6: an id containing NULL is ignored by the client, and a line end
        // would end the field early.
        if let id, id.contains(where: { $0.isNewline || $0 == "\0" }) {
            throw StubMappingError(field: reader.field("id"), "must be a single line without NULL")
        }
        let bytes = SSEEncoder.encode(ServerSentEvent(type: type, data: data.text, id: id))
        return Part(delayMilliseconds: try reader.milliseconds("delayMs") ?? 0, bytes: bytes)
    }
}
