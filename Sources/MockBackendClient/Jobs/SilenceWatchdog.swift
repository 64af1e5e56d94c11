/// Decides when a WebSocket that says nothing counts as dropped: a connection can die
/// without a FIN or a close frame reaching the client (a phone that changed networks, a
/// NAT that forgot the flow), and then only silence tells.
///
/// The server pings every 20 s (`--ws-ping-interval`, `openapi/openapi.yaml` operation
/// `importProgressWebSocket`) and a live job sends events, so a healthy socket is never
/// silent for long; a tracker gives it `silence` (50 s by default, 2.5 ping intervals:
/// one late ping is forgiven, two are not).
///
/// Pure: times are durations since the socket opened, read from whatever clock the driver
/// uses, so tests pass them directly.
public struct SilenceWatchdog: Sendable, Equatable {
    /// What to do at a check.
    public enum Verdict: Sendable, Equatable {
        /// Nothing was heard for `silence` or longer: the connection counts as dropped.
        case silent
        /// Check again after this long (when the silence would reach the limit).
        case wait(Duration)
    }

    /// The longest silence allowed; must be positive.
    public let silence: Duration
    /// When something (a message or a ping) was last heard, since the socket opened; the
    /// opening itself counts.
    public private(set) var lastHeard: Duration = .zero

    public init(silence: Duration) {
        self.silence = silence
    }

    /// Something arrived at `time`. Times that go back (a late report) change nothing.
    public mutating func heard(at time: Duration) {
        lastHeard = max(lastHeard, time)
    }

    /// The verdict at `time`: silent once `silence` has passed since anything was heard.
    public func check(at time: Duration) -> Verdict {
        let quiet = time - lastHeard
        return quiet >= silence ? .silent : .wait(silence - quiet)
    }
}
