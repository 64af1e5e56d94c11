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

/// Polls `condition` until it holds or `timeout` passes (generous by default: it returns
/// as soon as the condition holds, and sanitizer builds run slowly); for state that settles
/// asynchronously (a connection closing after its client left). Returns the last result.
///
/// Polling is the fallback: where the server announces what a test waits for, waiting on
/// the admin feed (`AdminClient.Events`) suspends until it happens instead.
public func eventually(
    timeout: Duration = .seconds(30), _ condition: () throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
        // A cancelled task's sleep returns at once: look a last time rather than spin.
        if Task.isCancelled { break }
    }
    return try condition()
}

/// `eventually` for a condition that must await, such as a call to the admin API: polls it
/// every `interval` until it holds or `timeout` passes. Returns the last result.
public func eventually(
    timeout: Duration = .seconds(30), interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
        if Task.isCancelled { break }
    }
    return try await condition()
}
