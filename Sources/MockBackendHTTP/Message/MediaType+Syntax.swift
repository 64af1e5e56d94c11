extension MediaType {
    /// Whether `text` is a media type as RFC 9110 §8.3.1 writes one:
    /// `type "/" subtype *( OWS ";" OWS token "=" ( token / quoted-string ) )`, in ASCII
    /// (a quoted string holds visible characters, spaces and tabs, and `\` pairs).
    public static func isValid(_ text: String) -> Bool {
        var scanner = MediaTypeScanner(bytes: Array(text.utf8))
        return scanner.mediaType()
    }
}

/// A cursor over the bytes of a media type; each method consumes what it names.
private struct MediaTypeScanner {
    let bytes: [UInt8]
    var index = 0

    mutating func mediaType() -> Bool {
        guard token(), take(UInt8(ascii: "/")), token() else { return false }
        while index < bytes.count {
            skipWhitespace()
            guard take(UInt8(ascii: ";")) else { return false }
            skipWhitespace()
            guard token(), take(UInt8(ascii: "=")) else { return false }
            guard quotedString() || token() else { return false }
        }
        return true
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    /// One or more tchar (RFC 9110 §5.6.2).
    private mutating func token() -> Bool {
        let start = index
        while index < bytes.count, HTTPToken.isTChar(bytes[index]) { index += 1 }
        return index > start
    }

    /// RFC 9110 §5.6.4, without obs-text.
    private mutating func quotedString() -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return true
            case UInt8(ascii: "\\"):
                guard index < bytes.count, Self.isQuotable(bytes[index]) else { return false }
                index += 1
            default:
                guard Self.isQuotable(byte) else { return false }
            }
        }
        return false
    }

    private static func isQuotable(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x7E).contains(byte)
    }
}
