import Dispatch

/// Converts a `Duration` to Dispatch's time interval.
public enum DispatchDuration {
    public static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
