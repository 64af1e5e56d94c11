/// A `Duration` as the numbers logs, wire formats and timers carry: milliseconds and
/// seconds. The one place the package turns attoseconds into anything else.
extension Duration {
    /// Milliseconds with their fraction.
    package var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }

    /// Seconds with their fraction.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded toward zero; saturates rather than trapping.
    package var wholeMilliseconds: Int64 {
        let (product, overflow) = components.seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return components.seconds < 0 ? .min : .max }
        let (sum, carry) = product.addingReportingOverflow(components.attoseconds / 1_000_000_000_000_000)
        return carry ? (product < 0 ? .min : .max) : sum
    }

    /// Seconds as a number, to the millisecond.
    package var secondsToTheMillisecond: Double { Double(wholeMilliseconds) / 1000 }

    /// A duration of `seconds`, to the millisecond.
    package static func seconds(toTheMillisecond seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
