import MockBackendHTTP
import MockBackendSupport

/// Identifiers of simulated things (jobs, generations, workflow sessions). With a seed
/// (`--seed`) they repeat from run to run; without one they come from the system generator.
/// Session tokens never come from here: they always come from `SecureToken`.
package final class IdentifierSource: Sendable {
    private let generator: LockedValue<SeededGenerator?>

    package init(seed: UInt64?) {
        generator = LockedValue(seed.map(SeededGenerator.init))
    }

    /// `length` lowercase hexadecimal digits.
    package func hex(length: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String(
            (0..<length).map { _ in digits[Int(next() % 16)] })
    }

    /// A number in `range`, for simulated randomness.
    package func number(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// A number below `bound`; any number when `bound` is 0 (the whole range).
    package func unsigned(below bound: UInt64) -> UInt64 {
        bound == 0 ? next() : next() % bound
    }

    private func next() -> UInt64 {
        generator.withLock { generator in
            guard var seeded = generator else {
                var system = SystemRandomNumberGenerator()
                return system.next()
            }
            let value = seeded.next()
            generator = seeded
            return value
        }
    }
}

/// SplitMix64: small, fast, and the same sequence for the same seed on every platform.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
