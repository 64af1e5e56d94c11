/// How a `JobTracker` follows a job: the stream's backoff, the polling that takes over when
/// the stream gives up, and when a return from the background checks the status first.
///
/// Two profiles come ready:
/// - `.generation`: reconnect after 1, 2, 4, 8, 8 s (five tries, no jitter), then poll every
///   5 s until the generation completes or fails — the generation API's documented
///   fallback (clients poll every 5 s).
/// - `.import`: the default backoff (0.2 s doubling to 30 s, six tries, up to 25 % jitter;
///   the import stream's `retry: 5000` starts the series and is a floor, so in practice
///   about 5, 10, 20, 30, 30, 30 s), then poll every 2 s. The import API names no interval;
///   imports move every 200 ms and last seconds to minutes, so 2 s keeps a progress bar
///   alive at the cost of one small GET per tick.
/// - `.importV1`: for an import followed on V1's progress WebSocket (there is no
///   reconnection: V1 has no resume), a silence watchdog of 50 s, then a poll every 3–5 s
///   (3 s plus up to 2 s of jitter) — V1's documented fallback.
public struct JobTrackerConfiguration: Sendable {
    /// Backoff between stream reconnections; when it gives up, polling takes over. Unused on
    /// a WebSocket, where a drop hands over to polling at once.
    public var policy: ReconnectionPolicy
    /// Time between status reads while polling.
    public var pollInterval: Duration
    /// Up to this much is added to each poll interval, drawn from the tracker's random
    /// source, so that clients that lost their connections together do not poll in step.
    /// Default zero.
    public var pollJitter: Duration
    /// A pause (`suspend()` to `resume()`) longer than this reads the status before
    /// reopening the stream, and a job that finished meanwhile is reported without
    /// reconnecting. Default 30 s.
    public var statusCheckAfterPause: Duration
    /// Headers for the stream and the status requests (`Authorization`, `X-Client-Id`, ...).
    public var headers: [String: String]
    /// The Last-Event-ID to resume from, for a job followed before (see `JobTracker.lastEventID`).
    /// Event streams only.
    public var lastEventID: String?
    /// Longest silence on an open event stream before it counts as failed. Default 5 minutes.
    /// (A WebSocket has `webSocketSilence`.)
    public var idleTimeout: Duration
    /// Transient polling failures in a row after which tracking fails; nil (the default): never.
    public var maxConsecutivePollFailures: Int?
    /// On a WebSocket: the longest time with nothing received — no message, no ping —
    /// before the socket counts as dropped and polling takes over (`SilenceWatchdog`).
    /// Default 50 s, 2.5 times the server's 20 s ping interval; zero turns the watchdog off.
    public var webSocketSilence: Duration

    public init(
        policy: ReconnectionPolicy = ReconnectionPolicy(), pollInterval: Duration = .seconds(2),
        pollJitter: Duration = .zero, statusCheckAfterPause: Duration = .seconds(30), headers: [String: String] = [:],
        lastEventID: String? = nil, idleTimeout: Duration = .seconds(300), maxConsecutivePollFailures: Int? = nil,
        webSocketSilence: Duration = .seconds(50)
    ) {
        self.policy = policy
        self.pollInterval = pollInterval
        self.pollJitter = pollJitter
        self.statusCheckAfterPause = statusCheckAfterPause
        self.headers = headers
        self.lastEventID = lastEventID
        self.idleTimeout = idleTimeout
        self.maxConsecutivePollFailures = maxConsecutivePollFailures
        self.webSocketSilence = webSocketSilence
    }

    /// 1-2-4-8-8 s, five tries, then a poll every 5 s.
    public static let generation = JobTrackerConfiguration(policy: .generation, pollInterval: .seconds(5))

    /// The default backoff, then a poll every 2 s.
    public static let `import` = JobTrackerConfiguration(policy: ReconnectionPolicy(), pollInterval: .seconds(2))

    /// No reconnection, a 50 s silence watchdog, then a poll every 3–5 s.
    public static let importV1 = JobTrackerConfiguration(
        pollInterval: .seconds(3), pollJitter: .seconds(2), webSocketSilence: .seconds(50))
}
