/// One session token seen on proxied requests: `GET /__admin/proxy/sessions`.
public struct ProxySession: Codable, Sendable, Equatable {
    /// `t1`, `t2`, … in the order first seen: a handle the admin routes take in place of the
    /// token itself.
    public var id: String
    /// The token, redacted: its first characters and `…`.
    public var token: String
    /// `active`, or `expired` once `POST …/expire` has acted.
    public var state: String
    public var firstSeenAt: String
    public var lastSeenAt: String
    /// Requests that carried it (sent upstream, or answered as expired).
    public var requests: Int
    /// Its proxied streams open now.
    public var openStreams: Int
    /// When it was expired, if it is.
    public var expiredAt: String?

    public init(
        id: String, token: String, state: String, firstSeenAt: String, lastSeenAt: String, requests: Int,
        openStreams: Int, expiredAt: String?
    ) {
        self.id = id
        self.token = token
        self.state = state
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.requests = requests
        self.openStreams = openStreams
        self.expiredAt = expiredAt
    }
}

/// The event written into a token's open proxied streams when it expires, before they end:
/// `{"data": …, "event"?: "name"}`. In `data` (a string, or JSON that is sent as its text)
/// `{{token}}` stands for the token.
public struct ProxyTerminalEvent: Codable, Sendable, Equatable {
    public var event: String?
    public var data: JSONValue

    public init(event: String? = nil, data: JSONValue) {
        self.event = event
        self.data = data
    }
}

/// `POST /__admin/proxy/sessions/{token}/expire`: how the expired token is answered from
/// now on. Every field is optional: without `status` and `body`, the last 401 or 403 the
/// upstream sent (status, headers and body), else 401 `SESSION_EXPIRED`; with `status`
/// only, that status and a problem body; without `event`, open streams end with no event.
public struct ProxySessionExpiry: Codable, Sendable, Equatable {
    public var status: Int?
    /// A string is sent as text, anything else as JSON.
    public var body: JSONValue?
    public var event: ProxyTerminalEvent?

    public init(status: Int? = nil, body: JSONValue? = nil, event: ProxyTerminalEvent? = nil) {
        self.status = status
        self.body = body
        self.event = event
    }
}

/// The answer to `POST /__admin/proxy/sessions/{token}/expire`.
public struct ProxySessionExpired: Codable, Sendable, Equatable {
    public var session: ProxySession
    /// Its open proxied streams that were ended.
    public var endedStreams: Int

    public init(session: ProxySession, endedStreams: Int) {
        self.session = session
        self.endedStreams = endedStreams
    }
}
