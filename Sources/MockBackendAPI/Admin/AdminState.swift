/// `GET /__admin/state`: the users, the sessions, the streams, how many requests the
/// journal holds, and how many log lines were dropped.
public struct AdminState: Codable, Sendable, Equatable {
    public var users: [UserAccount]
    public var sessions: [AdminSession]
    public var streams: [EventStreamSnapshot]
    public var requestCount: Int
    /// Log lines the `mockbackend` process dropped since start because its standard output
    /// was not read fast enough (logging never holds up serving); 0 for an app in a test.
    public var droppedLogLines: Int

    public init(
        users: [UserAccount], sessions: [AdminSession], streams: [EventStreamSnapshot], requestCount: Int,
        droppedLogLines: Int = 0
    ) {
        self.users = users
        self.sessions = sessions
        self.streams = streams
        self.requestCount = requestCount
        self.droppedLogLines = droppedLogLines
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
