/// What a stream replays to a connection, from the Last-Event-ID it sent.
package enum ReplayPolicy: Sendable, Equatable {
    /// A history: without Last-Event-ID everything retained; with a retained id what came
    /// after it; with an id past retention an `event: reset` and everything retained; with
    /// an id never issued a comment saying so and everything retained (a browser's
    /// EventSource cannot surface a 400). The job and workflow streams.
    case history
    /// Deltas: without Last-Event-ID nothing, only what happens from now on; with an id of
    /// the connection's audience what it missed since; with any other id nothing. The
    /// user-info stream, whose clients fetch the state by REST first (a replayed frame of
    /// an earlier session would log a fresh one out).
    case deltas
}

/// How a stream behaves toward its subscribers.
package struct EventStreamSettings: Sendable {
    /// Whether heartbeat comments are sent (the user-info stream has none, like its real counterpart).
    package var heartbeat = true
    /// A `retry:` sent to every subscriber on connect, in milliseconds.
    package var retry: Int?
    /// A comment sent first on every connection, e.g. `connection established`.
    package var greeting: String?
    /// Events kept for replay; nil takes the registry's default (1,000 unless the scenario
    /// says otherwise).
    package var retention: Int?
    /// What a connection is replayed. Default `.history`.
    package var replay = ReplayPolicy.history
    /// Simulated time without an event after which the server ends a connection, as the
    /// real user-info stream does; nil never.
    package var idleTimeout: Duration?
    /// Whether the stream also has WebSocket subscribers (an import's V1 progress socket):
    /// each event's message is then encoded once as it is logged, and kept beside its
    /// frame for replay (`StreamEvent`).
    package var messages = false

    package init(
        heartbeat: Bool = true, retry: Int? = nil, greeting: String? = nil, retention: Int? = nil,
        replay: ReplayPolicy = .history, idleTimeout: Duration? = nil, messages: Bool = false
    ) {
        self.heartbeat = heartbeat
        self.retry = retry
        self.greeting = greeting
        self.retention = retention
        self.replay = replay
        self.idleTimeout = idleTimeout
        self.messages = messages
    }
}
