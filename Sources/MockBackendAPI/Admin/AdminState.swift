/// `GET /__admin/state`: the users, the sessions, the streams and how many requests the
/// journal holds.
public struct AdminState: Codable, Sendable, Equatable {
    public var users: [UserAccount]
    public var sessions: [AdminSession]
    public var streams: [EventStreamSnapshot]
    public var requestCount: Int

    public init(users: [UserAccount], sessions: [AdminSession], streams: [EventStreamSnapshot], requestCount: Int) {
        self.users = users
        self.sessions = sessions
        self.streams = streams
        self.requestCount = requestCount
    }
}

/// The answer to `POST /__admin/reset`: `{"reset": true}`.
public struct AdminReset: Codable, Sendable, Equatable {
    public var reset: Bool

    public init(reset: Bool = true) {
        self.reset = reset
    }
}

/// `GET /__admin/health`: readiness of the admin side, with the version and uptime.
public struct AdminHealth: Codable, Sendable, Equatable {
    /// `ok`.
    public var status: String
    public var version: String
    public var uptimeSeconds: Double

    public init(status: String = "ok", version: String, uptimeSeconds: Double) {
        self.status = status
        self.version = version
        self.uptimeSeconds = uptimeSeconds
    }
}
