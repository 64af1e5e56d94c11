import MockBackendSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The IMF-fixdate for the `Date` header (RFC 9110 §5.6.7), formatted once per second.
enum HTTPDate {
    private static let cache = LockedValue<(second: time_t, text: [UInt8])>((0, []))
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Appends the current date's IMF-fixdate.
    static func appendNow(to bytes: inout [UInt8]) {
        let second = time(nil)
        bytes += cache.withLock { cached in
            if cached.second != second {
                cached = (second, Array(format(second).utf8))
            }
            return cached.text
        }
    }

    /// The current date's IMF-fixdate as text.
    static var now: String {
        var bytes: [UInt8] = []
        appendNow(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func format(_ second: time_t) -> String {
        var clock = second
        var parts = tm()
        gmtime_r(&clock, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(1900 + parts.tm_year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
