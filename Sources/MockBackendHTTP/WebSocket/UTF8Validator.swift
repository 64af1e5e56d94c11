/// Checks UTF-8 (RFC 3629 §4) a byte at a time, so a text message split across frames, and
/// a frame split across reads, is validated as its bytes arrive (RFC 6455 §8.1: an endpoint
/// fails the connection as soon as it sees invalid UTF-8; §5.6: text is UTF-8 over the whole
/// message, a character may straddle fragments).
///
/// Fails fast: a byte is refused as soon as no continuation could make the bytes so far
/// valid. Overlong forms, surrogates (U+D800...U+DFFF) and code points past U+10FFFF are
/// refused at their second byte, where the first alone cannot tell.
package struct UTF8Validator: Sendable, Equatable {
    /// Continuation bytes still expected by the character begun.
    private var remaining = 0
    /// The range the next continuation byte must fall in: narrower than 0x80...0xBF only
    /// right after the lead bytes E0, ED, F0 and F4.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    package init() {}

    /// Whether the bytes so far end on a character boundary: a message may end here.
    package var isComplete: Bool { remaining == 0 }

    /// Takes the next bytes; false as soon as one makes the bytes so far invalid (the
    /// validator is then of no further use).
    package mutating func consume<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        for byte in bytes where !consume(byte) { return false }
        return true
    }

    /// Takes one byte; false if it cannot continue valid UTF-8.
    @inline(__always)
    package mutating func consume(_ byte: UInt8) -> Bool {
        if remaining > 0 {
            guard byte >= lower, byte <= upper else { return false }
            remaining -= 1
            lower = 0x80
            upper = 0xBF
            return true
        }
        switch byte {
        case 0x00...0x7F:
            return true
        case 0xC2...0xDF:
            remaining = 1
        case 0xE0:
            // E0 80...9F would be an overlong form of a shorter sequence.
            (remaining, lower) = (2, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF:
            remaining = 2
        case 0xED:
            // ED A0...BF would encode a surrogate.
            (remaining, upper) = (2, 0x9F)
        case 0xF0:
            (remaining, lower) = (3, 0x90)
        case 0xF1...0xF3:
            remaining = 3
        case 0xF4:
            // F4 90 and above is past U+10FFFF.
            (remaining, upper) = (3, 0x8F)
        default:
            // 80...BF cannot start a character; C0, C1 only start overlong forms; F5...FF
            // only code points past U+10FFFF.
            return false
        }
        return true
    }
}
