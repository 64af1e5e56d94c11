import Foundation
import MockBackendSupport

/// How an event source backs off between reconnection attempts.
///
/// The delay before attempt `n` (from 1) is `min(maxDelay, start × multiplier^(n−1))`,
/// stretched by up to `jitter` of itself at random, where `start` is the server's
/// `retry:` when it sent one and `initialDelay` otherwise. A server `retry:` is also a
/// floor: the client never comes back sooner than the server asked. `initialDelay` is a
/// floor too, whatever the server says: `retry: 0` does not make a client reconnect in a
/// tight loop. A server `retry:` counts up to `maxServerRetry`, so a hostile or broken
/// value cannot park the client for years.
///
/// Everything is computed in `Duration`: no server value, attempt count or factor can trap.
public struct ReconnectionPolicy: Sendable, Equatable {
    /// `maxAttempts` for a source that never gives up.
    public static let unlimitedAttempts = Int.max

    /// Delay before the first reconnection, and the shortest delay there is, whatever the
    /// server's `retry:`. Default 0.2 s.
    public var initialDelay: Duration
    /// Factor between consecutive delays, at least 1. Default 2.
    public var multiplier: Double
    /// Longest computed delay. Default 30 s.
    public var maxDelay: Duration
    /// Reconnection attempts in a row, after the first connection, before giving up (or
    /// handing over to polling): a connection that ends before `backoffResetThreshold`
    /// counts as failed, so at most `1 + maxAttempts` short connections are made.
    /// `unlimitedAttempts` never gives up. Default 6.
    public var maxAttempts: Int
    /// Random stretch, from 0 (none) to 1 (up to double). Default 0.25.
    public var jitter: Double
    /// Longest server `retry:` honoured; a longer one counts as this. Default 1 hour.
    public var maxServerRetry: Duration
    /// How long a connection must stay open, from its response head to its end, for the
    /// attempt count (and so the delay) to start again from the first, as in LaunchDarkly's
    /// `backoffResetThreshold`. A connection that ends sooner counts as a failed attempt,
    /// whatever it delivered: otherwise a server that sends an event and closes would be
    /// retried at the initial delay forever. Default 60 s.
    public var backoffResetThreshold: Duration

    public init(
        initialDelay: Duration = .milliseconds(200), multiplier: Double = 2, maxDelay: Duration = .seconds(30),
        maxAttempts: Int = 6, jitter: Double = 0.25, maxServerRetry: Duration = .seconds(3600),
        backoffResetThreshold: Duration = .seconds(60)
    ) {
        self.initialDelay = max(initialDelay, .zero)
        self.multiplier = multiplier.isFinite ? max(multiplier, 1) : 1
        self.maxDelay = max(maxDelay, .zero)
        self.maxAttempts = max(maxAttempts, 0)
        self.jitter = jitter.isNaN ? 0 : min(max(jitter, 0), 1)
        self.maxServerRetry = max(maxServerRetry, .zero)
        self.backoffResetThreshold = max(backoffResetThreshold, .zero)
    }

    /// The generation client's profile: 1, 2, 4, 8, 8 s, five tries, no jitter.
    public static let generation = ReconnectionPolicy(
        initialDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(8), maxAttempts: 5, jitter: 0)

    /// The server's `retry:` in milliseconds as the delay it means, held to
    /// `0...maxServerRetry`.
    public func serverRetry(milliseconds: Int) -> Duration {
        min(.milliseconds(max(milliseconds, 0)), maxServerRetry)
    }

    /// The delay before `attempt` (from 1); `random` is in 0..<1.
    public func delay(attempt: Int, serverRetry: Duration?, random: Double) -> Duration {
        let retry = serverRetry.map { min(max($0, .zero), maxServerRetry) }
        let start = max(retry ?? initialDelay, initialDelay)
        let exponent = Double(max(0, attempt - 1))
        // Compared in seconds first, so a large attempt count (pow giving infinity) or a
        // long start only ever reaches maxDelay; the multiplication below stays in range.
        let factor = pow(multiplier, exponent)
        let base = start.seconds * factor >= maxDelay.seconds ? maxDelay : start * factor
        let stretch = jitter * (random.isNaN ? 0 : min(max(random, 0), 1))
        var delay = base + base * stretch
        if let retry { delay = max(delay, retry) }
        return delay
    }
}
