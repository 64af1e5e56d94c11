import Foundation
import MockBackendSupport

/// How an event source backs off between reconnection attempts.
///
/// The delay before attempt `n` (from 1) is `min(maxDelay, start × multiplier^(n−1))`,
/// stretched by up to `jitter` of itself at random, where `start` is the server's
/// `retry:` when it sent one and `initialDelay` otherwise. A server `retry:` is also a
/// floor: the client never comes back sooner than the server asked.
public struct ReconnectionPolicy: Sendable, Equatable {
    /// Delay before the first reconnection when the server advertised none. Default 0.2 s.
    public var initialDelay: Duration
    /// Factor between consecutive delays. Default 2.
    public var multiplier: Double
    /// Longest computed delay. Default 30 s.
    public var maxDelay: Duration
    /// Reconnection attempts in a row without a successful open before giving up (or
    /// handing over to polling). Default 6.
    public var maxAttempts: Int
    /// Random stretch, from 0 (none) to 1 (up to double). Default 0.25.
    public var jitter: Double

    public init(
        initialDelay: Duration = .milliseconds(200), multiplier: Double = 2, maxDelay: Duration = .seconds(30),
        maxAttempts: Int = 6, jitter: Double = 0.25
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.maxAttempts = maxAttempts
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The generation client's profile: 1, 2, 4, 8, 8 s, five tries, no jitter.
    public static let generation = ReconnectionPolicy(
        initialDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(8), maxAttempts: 5, jitter: 0)

    /// The delay before `attempt` (from 1); `random` is in 0..<1.
    public func delay(attempt: Int, serverRetry: Duration?, random: Double) -> Duration {
        let start = serverRetry ?? initialDelay
        let exponent = Double(max(0, attempt - 1))
        let base = min(maxDelay.seconds, start.seconds * pow(multiplier, exponent))
        var seconds = base * (1 + jitter * min(max(random, 0), 1))
        if let serverRetry { seconds = max(seconds, serverRetry.seconds) }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
