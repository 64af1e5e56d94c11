import Dispatch

/// Converts a `Duration` to Dispatch's time interval.
package enum DispatchDuration {
    /// Saturates instead of trapping: a duration past `Int.max` nanoseconds (about 292
    /// years) becomes `.never`, a negative one past `Int.min` becomes zero.
    package static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = Int(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = whole.addingReportingOverflow(Int(attoseconds / 1_000_000_000))
        guard !overflow, !carry else { return seconds < 0 ? .nanoseconds(0) : .never }
        return .nanoseconds(total)
    }
}
