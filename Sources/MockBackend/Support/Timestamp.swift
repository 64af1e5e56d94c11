#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ISO 8601 UTC with milliseconds, the format of every time field.
package enum Timestamp {
    package static func iso8601(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// Reads an RFC 3339 date-time (the `date-time` of JSON Schema and OpenAPI): any year
    /// from 0000, fractional seconds of any length, `Z` or a `±hh:mm` offset, `T`/`Z` in
    /// either case, and a leap second (`:60`, read as the second after `:59`).
    package static func parse(_ text: String) -> Date? {
        var scanner = RFC3339Scanner(bytes: Array(text.utf8))
        return scanner.dateTime()
    }
}

/// The RFC 3339 §5.6 grammar, read byte by byte; each method consumes what it names.
private struct RFC3339Scanner {
    let bytes: [UInt8]
    var index = 0

    mutating func dateTime() -> Date? {
        guard let year = digits(4), take("-"), let month = digits(2), take("-"), let day = digits(2),
            (1...12).contains(month), (1...Self.days(inMonth: month, year: year)).contains(day),
            take("T") || take("t"), let hour = digits(2), take(":"), let minute = digits(2), take(":"),
            let second = digits(2), hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        if take(".") {
            var scale = 0.1
            let start = index
            while let digit = digit() {
                fraction += Double(digit) * scale
                scale /= 10
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if take("Z") || take("z") {
            offset = 0
        } else if let sign = take("+") ? 1 : (take("-") ? -1 : nil) {
            guard let hours = digits(2), take(":"), let minutes = digits(2), hours < 24, minutes < 60 else {
                return nil
            }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = Self.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private mutating func take(_ character: Character) -> Bool {
        guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
        index += 1
        return true
    }

    private mutating func digit() -> Int? {
        guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
        defer { index += 1 }
        return Int(bytes[index] - 48)
    }

    private mutating func digits(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's
    /// `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
