/// Identifiers for sessions, traces and signed URLs, from the system's cryptographically
/// secure generator (`SystemRandomNumberGenerator`): version 4 UUIDs, or plain hex.
package enum SecureToken {
    package static func uuid() -> String {
        var generator = SystemRandomNumberGenerator()
        return uuid(using: &generator)
    }

    /// A version 4 UUID from `generator`; a seeded generator makes repeatable ids.
    package static func uuid<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map(hexDigits)
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(
            separator: "-")
    }

    /// `byteCount` random bytes as lower-case hex: a token nobody can guess, e.g. the
    /// signature of an image URL.
    package static func hex(byteCount: Int = 16) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<byteCount).map { _ in hexDigits(UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    private static func hexDigits(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16)
        return text.count == 1 ? "0" + text : text
    }
}
