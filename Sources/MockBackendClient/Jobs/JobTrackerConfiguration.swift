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
public struct JobTrackerConfiguration: Sendable {
    /// Backoff between stream reconnections; when it gives up, polling takes over.
    public var policy: ReconnectionPolicy
    /// Time between status reads while polling.
    public var pollInterval: Duration
    /// A pause (`suspend()` to `resume()`) longer than this reads the status before
    /// reopening the stream, and a job that finished meanwhile is reported without
    /// reconnecting. Default 30 s.
    public var statusCheckAfterPause: Duration
    /// Headers for the stream and the status requests (`Authorization`, `X-Client-Id`, ...).
    public var headers: [String: String]
    /// The Last-Event-ID to resume from, for a job followed before (see `JobTracker.lastEventID`).
    public var lastEventID: String?
    /// Longest silence on an open stream before it counts as failed. Default 5 minutes.
    public var idleTimeout: Duration
    /// Transient polling failures in a row after which tracking fails; nil (the default): never.
    public var maxConsecutivePollFailures: Int?

    public init(
        policy: ReconnectionPolicy = ReconnectionPolicy(), pollInterval: Duration = .seconds(2),
        statusCheckAfterPause: Duration = .seconds(30), headers: [String: String] = [:], lastEventID: String? = nil,
        idleTimeout: Duration = .seconds(300), maxConsecutivePollFailures: Int? = nil
    ) {
        self.policy = policy
        self.pollInterval = pollInterval
        self.statusCheckAfterPause = statusCheckAfterPause
        self.headers = headers
        self.lastEventID = lastEventID
        self.idleTimeout = idleTimeout
        self.maxConsecutivePollFailures = maxConsecutivePollFailures
    }

    /// 1-2-4-8-8 s, five tries, then a poll every 5 s.
    public static let generation = JobTrackerConfiguration(policy: .generation, pollInterval: .seconds(5))

    /// The default backoff, then a poll every 2 s.
    public static let `import` = JobTrackerConfiguration(policy: ReconnectionPolicy(), pollInterval: .seconds(2))
}
