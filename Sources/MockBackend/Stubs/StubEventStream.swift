import MockBackendAPI
import ServerSentEvents

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// mockbackend's own `response.sse`: an event stream played to each client on the
/// simulation clock, each write after its `delayMs` (from the write before it; the head
/// for the first), then ended as the upstream of a recording ended it.
///
/// ```json
/// {"events": [{"event": "progress", "data": {"pct": 50}, "id": "1", "delayMs": 200},
///             {"comment": "heartbeat", "delayMs": 15000},
///             {"retry": 3000, "delayMs": 0}],
///  "retry": 3000, "end": "clean"}
/// ```
///
/// An event item has any of `data` (a string, or any JSON), `event`, `id`, `retry` and
/// `comment` (a line or lines written as `:` comments); one without `data` dispatches
/// nothing (WHATWG HTML §9.2.6) but still sets the client's id or retry. `end`: `clean`
/// (the default; `"close": true` says the same), `fin` (the connection closes without the
/// body's end), `rst` (reset), `open` (`"close": false`: it stays open after the last
/// write). With `"preserveChunking": true` the stream is `chunks` instead — `[{"delayMs",
/// "text" | "base64"}]`, written byte for byte with their original boundaries, as
/// `--record` writes them. With `"resumable": true` (what recordings write) a client that
/// sends `Last-Event-ID` with an id the stub writes resumes right after that event; without
/// it every connection gets the whole stream again.
struct StubEventStream: Sendable {
    /// One write: its bytes, `delayMilliseconds` after the write before it, and the
    /// blocks they complete (for the journal, resumes and event-counting faults).
    struct Part: Sendable, Equatable {
        var delayMilliseconds: Int
        var bytes: [UInt8]
        /// An event whose `data` is a template: the lines before its data, and the data's
        /// template; `bytes` are written from them for each request.
        var template: (head: String, data: ResponseTemplate)?

        static func == (lhs: Part, rhs: Part) -> Bool {
            lhs.delayMilliseconds == rhs.delayMilliseconds && lhs.bytes == rhs.bytes
                && lhs.template?.head == rhs.template?.head && lhs.template?.data == rhs.template?.data
        }
    }

    /// How the stream ends after its last write.
    enum Ending: String, Sendable, CaseIterable {
        case clean
        case fin
        case rst
        case open
    }

    var parts: [Part]
    var ending: Ending
    var preservesChunking: Bool
    var resumable: Bool

    /// Bounds a stub's memory: a recording of a long stream is still a file of this size
    /// at most.
    static let maximumBytes = 8 * 1024 * 1024

    /// Whether any event's data is a template.
    var hasTemplates: Bool { parts.contains { $0.template != nil } }

    /// The stream for one request: every templated event's data rendered with the input
    /// for the clock's time when the event is due (`input` takes its offset from the head).
    func rendered(
        _ input: (Duration) -> TemplateRenderInput
    ) throws(TemplateRenderError) -> StubEventStream {
        var stream = self
        var offset = 0
        var size = 0
        for index in stream.parts.indices {
            offset += stream.parts[index].delayMilliseconds
            if let template = stream.parts[index].template {
                let data = try template.data.render(input(.milliseconds(offset)))
                var text = template.head
                for line in Self.lines(data) { text += "data: \(line)\n" }
                stream.parts[index].bytes = Array((text + "\n").utf8)
            }
            size += stream.parts[index].bytes.count
            guard size <= Self.maximumBytes else {
                throw TemplateRenderError(
                    reason: "response.sse would write more than \(Self.maximumBytes / 1024 / 1024) MiB")
            }
        }
        return stream
    }

    /// Reads the `sse` object at `path`; with `templated`, event data are templates.
    static func parse(_ value: JSONValue, path: String, templated: Bool = false) throws(StubMappingError)
        -> StubEventStream
    {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(
            known: ["events", "retry", "close", "end", "preserveChunking", "chunks", "resumable"])
        let preservesChunking = try reader.bool("preserveChunking") ?? false
        var parts: [Part] = []
        if preservesChunking {
            if let other = ["events", "retry"].first(where: reader.has) {
                throw StubMappingError(
                    field: reader.field(other), "cannot be combined with preserveChunking; use chunks")
            }
            for (index, item) in (try reader.array("chunks") ?? []).enumerated() {
                parts.append(try chunk(item, path: reader.field("chunks") + "[\(index)]"))
            }
        } else {
            if reader.has("chunks") {
                throw StubMappingError(field: reader.field("chunks"), "needs \"preserveChunking\": true")
            }
            if let retry = try reader.integer("retry") {
                guard retry >= 0 else { throw StubMappingError(field: reader.field("retry"), "must be 0 or more") }
                parts.append(Part(delayMilliseconds: 0, bytes: SSEEncoder.retry(milliseconds: retry)))
            }
            for (index, item) in (try reader.array("events") ?? []).enumerated() {
                parts.append(try event(item, path: reader.field("events") + "[\(index)]", templated: templated))
            }
        }
        let size = parts.reduce(0) { $0 + $1.bytes.count }
        guard size <= maximumBytes else {
            throw StubMappingError(field: path, "is \(size) bytes once encoded; at most \(maximumBytes) are allowed")
        }
        return StubEventStream(
            parts: parts, ending: try ending(reader), preservesChunking: preservesChunking,
            resumable: try reader.bool("resumable") ?? false)
    }

    private static func ending(_ reader: MappingFieldReader) throws(StubMappingError) -> Ending {
        let close = try reader.bool("close")
        guard let text = try reader.string("end") else { return close == false ? .open : .clean }
        guard let ending = Ending(rawValue: text) else {
            throw StubMappingError(
                field: reader.field("end"), "must be one of \(Ending.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if close != nil { throw StubMappingError(field: reader.field("close"), "cannot be combined with end") }
        return ending
    }

    private static func event(_ value: JSONValue, path: String, templated: Bool) throws(StubMappingError) -> Part {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(known: ["event", "data", "id", "retry", "comment", "delayMs"])
        let type = try reader.string("event")
        if let type, type.isEmpty || type.contains(where: \.isNewline) {
            throw StubMappingError(field: reader.field("event"), "must be a non-empty single line")
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
        let retry = try reader.integer("retry")
        if let retry, retry < 0 { throw StubMappingError(field: reader.field("retry"), "must be 0 or more") }
        let comment = try reader.string("comment")
        let data = reader.value("data")
        guard data != nil || comment != nil || retry != nil || id != nil else {
            throw StubMappingError(
                field: reader.field("data"),
                "is required (a string, or any JSON) unless the item has a comment, retry or id")
        }
        var text = ""
        for line in comment.map(Self.lines) ?? [] { text += ":\(line)\n" }
        if let retry { text += "retry: \(retry)\n" }
        if let id { text += "id: \(id)\n" }
        if let type { text += "event: \(type)\n" }
        let delay = try reader.milliseconds("delayMs") ?? 0
        if templated, let data {
            let template: ResponseTemplate?
            do {
                template = try ResponseTemplate(data.text, field: reader.field("data"))
            } catch {
                throw StubMappingError(field: reader.field("data"), template: error)
            }
            if let template { return Part(delayMilliseconds: delay, bytes: [], template: (text, template)) }
        }
        for line in data.map({ Self.lines($0.text) }) ?? [] { text += "data: \(line)\n" }
        text += "\n"
        return Part(delayMilliseconds: delay, bytes: Array(text.utf8))
    }

    private static func chunk(_ value: JSONValue, path: String) throws(StubMappingError) -> Part {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(known: ["text", "base64", "delayMs"])
        let bytes: [UInt8]
        switch (try reader.string("text"), try reader.string("base64")) {
        case (let text?, nil):
            bytes = Array(text.utf8)
        case (nil, let encoded?):
            guard let data = Data(base64Encoded: encoded) else {
                throw StubMappingError(field: reader.field("base64"), "is not base64")
            }
            bytes = Array(data)
        default:
            throw StubMappingError(field: path, "needs exactly one of text and base64")
        }
        return Part(delayMilliseconds: try reader.milliseconds("delayMs") ?? 0, bytes: bytes)
    }

    /// Lines as a client splits them: at CRLF, LF or CR.
    static func lines(_ text: String) -> [Substring] {
        // CRLF is one Character in Swift: splitting at each of the three ends a line once.
        text.split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }
    }
}
