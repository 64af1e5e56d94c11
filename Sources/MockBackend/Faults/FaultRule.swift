/// A fault rule: which requests it hits, what it does, how often (SPEC 7).
///
/// `{"match":{"method","path","header"},"fault":{"kind",...},"times":N,"probability":p}`
public struct FaultRule: Codable, Sendable, Equatable {
    /// Which requests a rule hits; every given condition must hold.
    public struct Match: Codable, Sendable, Equatable {
        public var method: String?
        /// A glob over the path: `*` within one segment, `**` across segments.
        public var path: String?
        /// Header values that must be equal (names case-insensitive).
        public var header: [String: String]?
    }

    public var id: String
    public var match: Match
    public var fault: FaultSpec
    /// How many more times it may fire; nil for no limit.
    public var times: Int?
    /// The chance, from 0 to 1, that it fires on a matching request. Default 1.
    public var probability: Double?
    /// How many times it has fired.
    public var fired: Int = 0
}

/// What a fault does, named after WireMock `Fault`, OkHttp `SocketPolicy` and Toxiproxy.
public struct FaultSpec: Codable, Sendable, Equatable {
    /// `status`, `forbidden`, `delay`, `latency`, `drop_after_events`, `drop_after_bytes`,
    /// `cut_inside_event`, `fragment`, `stall`, `mute`, `buffer`, `reset`, `empty_response`,
    /// `malformed`, `refuse_stream`.
    public var kind: String
    /// `status`, `refuse_stream`: the status to answer with.
    public var status: Int?
    /// `status`: a body, a string or any JSON (default a problem+json).
    public var body: JSONValue?
    /// `status`: a `Retry-After` in seconds.
    public var retryAfter: Int?
    /// `delay`, `latency`, `stall`, `mute`, `fragment`: milliseconds.
    public var ms: Int?
    /// `drop_after_events`: events sent before the cut. `cut_inside_event`: the event (from 1) cut.
    public var events: Int?
    /// `drop_after_bytes`: body bytes sent before the cut. `cut_inside_event`: bytes of the
    /// event sent before the cut. `fragment`: the size of each piece.
    public var bytes: Int?
    /// `drop_after_*`, `cut_inside_event`: end with RST instead of FIN.
    public var reset: Bool?
    /// `fragment`: `crlf` (between CR and LF, line ends written as CRLF) or `utf8` (inside a
    /// multi-byte character).
    public var split: String?
    /// `fragment`: milliseconds between pieces. Default 20.
    public var delayMs: Int?
    /// `buffer`: hold bytes until this many KiB or the end.
    public var kb: Int?
    /// `malformed`: `MALFORMED_RESPONSE_CHUNK` (default) or `RANDOM_DATA_THEN_CLOSE`.
    public var variant: String?
    /// `refuse_stream`: hang before the head instead of answering a status.
    public var hang: Bool?
    /// `stall`: events sent before the stall. Default 0.
    public var afterEvents: Int?

    public static let kinds: Set<String> = [
        "status", "forbidden", "delay", "latency", "drop_after_events", "drop_after_bytes", "cut_inside_event",
        "fragment", "stall", "mute", "buffer", "reset", "empty_response", "malformed", "refuse_stream",
    ]
}
