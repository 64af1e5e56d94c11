import Foundation

/// `{{now}}`: the simulation clock's time, shifted by `offset`, written in `format`
/// (Java's SimpleDateFormat letters, which Unicode's date patterns share; `epoch` for
/// milliseconds and `unix` for seconds since 1970) in `timezone` (UTC by default), as
/// WireMock's helper. Without a format it is ISO 8601 to the second: `2026-11-28T09:00:00Z`.
enum TemplateNow {
    /// `"<amount> <unit>"` or `"now +<amount> <unit>"`, unit one of seconds, minutes, hours,
    /// days, months, years (the singular too).
    struct Offset: Sendable, Equatable {
        var amount: Int
        var component: Calendar.Component

        init?(_ text: String) {
            var words = text.split(whereSeparator: \.isWhitespace).map(String.init)
            if words.first?.lowercased() == "now" { words.removeFirst() }
            if words.count == 3, words[0] == "+" || words[0] == "-" {
                words = [words[0] + words[1], words[2]]
            }
            guard words.count == 2, let amount = Int(words[0].hasPrefix("+") ? String(words[0].dropFirst()) : words[0])
            else { return nil }
            var unit = words[1].lowercased()
            if unit.hasSuffix("s") { unit.removeLast() }
            let components: [String: Calendar.Component] = [
                "second": .second, "minute": .minute, "hour": .hour, "day": .day, "month": .month, "year": .year,
            ]
            guard let component = components[unit] else { return nil }
            self.amount = amount
            self.component = component
        }
    }

    /// The text for `date`; nil when `timezone` names no zone.
    static func text(date: Date, format: String?, offset: Offset?, timezone: String?) -> String? {
        let zone: TimeZone
        if let timezone {
            guard let named = TimeZone(identifier: timezone) ?? TimeZone(abbreviation: timezone) else { return nil }
            zone = named
        } else {
            zone = TimeZone(identifier: "UTC")!
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var shifted = date
        if let offset {
            shifted = calendar.date(byAdding: offset.component, value: offset.amount, to: date) ?? date
        }
        switch format {
        case "epoch": return String(Int64((shifted.timeIntervalSince1970 * 1000).rounded(.down)))
        case "unix": return String(Int64(shifted.timeIntervalSince1970.rounded(.down)))
        default: break
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = calendar
        formatter.timeZone = zone
        formatter.dateFormat =
            format
            ?? (zone.secondsFromGMT(for: shifted) == 0 && timezone == nil
                ? "yyyy-MM-dd'T'HH:mm:ss'Z'" : "yyyy-MM-dd'T'HH:mm:ssXXX")
        return formatter.string(from: shifted)
    }

    /// Whether `timezone` names a zone this platform knows.
    static func knows(timezone: String) -> Bool {
        TimeZone(identifier: timezone) != nil || TimeZone(abbreviation: timezone) != nil
    }
}
