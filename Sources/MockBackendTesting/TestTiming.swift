#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much slower than usual this test run may be: `MOCKBACKEND_TEST_TIME_SCALE`
/// (default 1). Sanitizer builds run several times slower, so CI sets 5 for its
/// ThreadSanitizer run. Waits and upper bounds on elapsed time in tests scale by it;
/// lower bounds never do, so a scaled run still catches a server that is too quick.
public enum TestTiming {
    public static let scale: Int = {
        guard let text = getenv("MOCKBACKEND_TEST_TIME_SCALE"), let value = Int(String(cString: text)), value >= 1
        else { return 1 }
        return value
    }()

    /// `duration` stretched by the scale.
    public static func scaled(_ duration: Duration) -> Duration {
        duration * scale
    }
}
