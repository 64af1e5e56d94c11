#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ISO 8601 UTC with milliseconds, the format of every time field.
public enum Timestamp {
    public static func iso8601(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// Reads an ISO 8601 time with or without fractional seconds.
    public static func parse(_ text: String) -> Date? {
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return (try? Date(text, strategy: fractional)) ?? (try? Date(text, strategy: .iso8601))
    }
}
