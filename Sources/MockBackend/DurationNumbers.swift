/// A `Duration` as the numbers the wire formats carry (milliseconds, seconds).
extension Duration {
    /// Milliseconds with their fraction.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }

    /// Whole milliseconds, rounded down.
    var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// Seconds as a number, to the millisecond.
    var secondsToTheMillisecond: Double { Double(wholeMilliseconds) / 1000 }

    /// A duration of `seconds`, to the millisecond.
    static func seconds(toTheMillisecond seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
