/// What a fault rule does to the requests it hits, named after the vocabularies people know
/// (WireMock `Fault`, OkHttp `SocketPolicy`, Toxiproxy toxics). `openapi/openapi.yaml`
/// (`FaultSpec`) documents every kind and its fields.
///
/// Decoded from `{"kind": "...", <the kind's fields>}` and checked as it is decoded
/// (`Fault+Coding.swift`): an unknown kind, a field the kind does not take, a missing
/// field it needs or a value out of range is refused there, naming the field, so nothing
/// past the admin API ever sees a fault that cannot mean something.
public enum Fault: Sendable, Equatable {
    /// How `fragment` cuts every body write.
    public enum Fragmentation: Sendable, Equatable {
        /// Pieces of this many bytes.
        case bytes(Int)
        /// Between the CR and the LF of every line end (line ends written as CRLF).
        case crlf
        /// Inside every multi-byte UTF-8 character.
        case utf8
    }

    /// What `malformed` sends.
    public enum Malformation: String, Sendable, Equatable, CaseIterable {
        /// A head, then a chunk that is not one (`zz`), then FIN.
        case malformedResponseChunk = "MALFORMED_RESPONSE_CHUNK"
        /// Bytes that are not HTTP, then FIN.
        case randomDataThenClose = "RANDOM_DATA_THEN_CLOSE"
    }

    /// Any status instead of the route's answer, with an optional body and `Retry-After`.
    case status(Int, body: JSONValue?, retryAfter: Int?)
    /// The player API's own session-expired body, without expiring anything, with status 403
    /// (the backend's usual answer) or 401 (its other flavour).
    case forbidden(status: Int)
    /// A pause before the response head.
    case delay(milliseconds: Int)
    /// A pause before every write.
    case latency(milliseconds: Int)
    /// The connection ends after this many events (0: right after the head).
    case dropAfterEvents(Int, reset: Bool)
    /// The connection ends after this many body bytes.
    case dropAfterBytes(Int, reset: Bool)
    /// Event `event` (from 1) is cut after `afterBytes` of its bytes, then the connection ends.
    case cutInsideEvent(event: Int, afterBytes: Int, reset: Bool)
    /// Every body write goes out in pieces with a pause between them.
    case fragment(Fragmentation, pauseMilliseconds: Int)
    /// After `afterEvents` events nothing more is sent for `milliseconds` (nil: for good);
    /// the socket stays open.
    case stall(afterEvents: Int, milliseconds: Int?)
    /// Heartbeats go on but events are dropped for `milliseconds` (nil: for good).
    case mute(milliseconds: Int?)
    /// After `afterEvents` events: nothing sent, nothing read, never closed (half-open).
    case blackhole(afterEvents: Int)
    /// Every byte is held until this many accumulate or the response ends.
    case buffer(bytes: Int)
    /// RST instead of an answer.
    case reset
    /// FIN instead of an answer.
    case emptyResponse
    /// A broken answer, then FIN.
    case malformed(Malformation)
    /// A stream request is answered with a status (default 503), or hangs before its head;
    /// other requests pass.
    case refuseStream(status: Int?, hang: Bool)
    /// HTTP/2: after `afterEvents` events the stream ends with RST_STREAM `code` (RFC 9113
    /// §7: 8 `CANCEL` by default, 7 `REFUSED_STREAM`, 2 `INTERNAL_ERROR`…). HTTP/1.1: RST.
    case rstStream(code: Int, afterEvents: Int)
    /// HTTP/2: after `afterEvents` events the whole connection gets GOAWAY `code` (naming
    /// `lastStreamId`, by default the last stream processed) and closes. HTTP/1.1: FIN.
    case goAway(code: Int, afterEvents: Int, lastStreamID: Int?)
    /// HTTP/2: connections opened while the rule is in force announce
    /// SETTINGS_MAX_CONCURRENT_STREAMS `n` (each counts against `times`); the rule's match
    /// is not asked. No effect on HTTP/1.1.
    case maxConcurrentStreams(Int)
    /// After `afterBytes` bytes of the body nothing more is sent, though the connection and
    /// (on HTTP/2) the client's window are open: DATA held as if the window never opened.
    case windowStall(afterBytes: Int)
    /// HTTP/2: an event stream's head carries `content-length: 0`, as a misconfigured proxy
    /// adds; its DATA then make the response malformed (RFC 9113 §8.1.1), which clients
    /// take as PROTOCOL_ERROR. No effect on HTTP/1.1 (the server frames its bodies).
    case contentLengthOnStream

    /// The `kind` of every case, as the admin API spells it.
    public static let kinds = [
        "status", "forbidden", "delay", "latency", "drop_after_events", "drop_after_bytes", "cut_inside_event",
        "fragment", "stall", "mute", "blackhole", "buffer", "reset", "empty_response", "malformed", "refuse_stream",
        "rst_stream", "goaway", "max_concurrent_streams", "window_stall", "content_length_on_stream",
    ]

    /// The admin API's name of this kind.
    public var kind: String {
        switch self {
        case .status: "status"
        case .forbidden: "forbidden"
        case .delay: "delay"
        case .latency: "latency"
        case .dropAfterEvents: "drop_after_events"
        case .dropAfterBytes: "drop_after_bytes"
        case .cutInsideEvent: "cut_inside_event"
        case .fragment: "fragment"
        case .stall: "stall"
        case .mute: "mute"
        case .blackhole: "blackhole"
        case .buffer: "buffer"
        case .reset: "reset"
        case .emptyResponse: "empty_response"
        case .malformed: "malformed"
        case .refuseStream: "refuse_stream"
        case .rstStream: "rst_stream"
        case .goAway: "goaway"
        case .maxConcurrentStreams: "max_concurrent_streams"
        case .windowStall: "window_stall"
        case .contentLengthOnStream: "content_length_on_stream"
        }
    }

    /// `forbidden` with 403, the player API's usual answer to a dead session.
    public static var forbidden: Fault { .forbidden(status: 403) }

    /// Default pause between `fragment` pieces, in milliseconds.
    static let defaultFragmentPause = 20
}
