/// One request as the journal keeps it: `GET /__admin/requests`.
public struct JournaledRequest: Codable, Sendable, Equatable {
    /// The entry's number, from 1 in the order requests were answered.
    public var id: Int
    /// ISO 8601 UTC, to the millisecond.
    public var receivedAt: String
    public var method: String
    /// The request target as sent: path and query.
    public var target: String
    public var path: String
    /// Repeated fields are joined with ", ".
    public var headers: [String: String]
    /// The first KiB of the body, as UTF-8 (invalid bytes replaced).
    public var bodyExcerpt: String
    public var bodySize: Int
    public var status: Int
    /// Time to build the response (for a stream: until its head).
    public var durationMs: Double
    public var connection: UInt64
    /// What it came over: `http/1.0`, `http/1.1`, `h2` (HTTP/2 over TLS) or `h2c`. Absent
    /// in entries of servers older than HTTP/2.
    public var `protocol`: String?
    /// Over HTTP/2: the stream's id on its connection. (`connection` is then the stream's
    /// own id: to streams and journals each HTTP/2 stream is a connection.)
    public var streamId: Int?
    /// Over HTTP/2: the id of the connection the stream is one of.
    public var http2Connection: UInt64?
    /// Over HTTP/2: the RST_STREAM that ended the stream and the GOAWAY of its connection
    /// while it was open, each sent or received, in order. Absent when there was none.
    public var http2Endings: [HTTP2EndingFrame]?
    /// The fault that acted on this request, if one did: its kind, a space and the rule's id.
    public var fault: String?
    /// True when the request went upstream (proxy mode, or a mapping's `proxyBaseUrl`);
    /// absent otherwise. Its secrets are shown redacted.
    public var proxied: Bool?
    /// The upstream's status, when its answer's head came.
    public var upstreamStatus: Int?
    /// From sending the request upstream to its answer's head (or the failure), in ms.
    public var upstreamLatencyMs: Double?

    public init(
        id: Int, receivedAt: String, method: String, target: String, path: String, headers: [String: String],
        bodyExcerpt: String, bodySize: Int, status: Int, durationMs: Double, connection: UInt64, fault: String?
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.method = method
        self.target = target
        self.path = path
        self.headers = headers
        self.bodyExcerpt = bodyExcerpt
        self.bodySize = bodySize
        self.status = status
        self.durationMs = durationMs
        self.connection = connection
        self.fault = fault
    }
}

/// The answer to `POST /__admin/requests/count`.
public struct RequestCount: Codable, Sendable, Equatable {
    /// How many journaled requests the matcher matched.
    public var count: Int

    public init(count: Int) {
        self.count = count
    }
}

/// The answer to `DELETE /__admin/requests`.
public struct RequestsCleared: Codable, Sendable, Equatable {
    /// How many entries the journal held.
    public var cleared: Int

    public init(cleared: Int) {
        self.cleared = cleared
    }
}
