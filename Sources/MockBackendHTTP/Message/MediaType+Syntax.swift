extension MediaType {
    /// Whether `text` is a media type as RFC 9110 §8.3.1 writes one, fit to be sent as a
    /// field value:
    ///
    ///     media-type = type "/" subtype parameters
    ///     parameters = *( OWS ";" OWS [ parameter ] )
    ///     parameter  = parameter-name "=" parameter-value
    ///
    /// with token names and token or quoted-string values (§5.6.2, §5.6.4). A parameter may
    /// be empty, so `text/event-stream;` and `a/b ; ;c=d` are media types. Two limits come
    /// from the field value the text becomes (§5.5): it neither starts nor ends with
    /// whitespace, and it is ASCII (obs-text in a quoted string is for reading old
    /// messages, not for sending).
    package static func isValid(_ text: String) -> Bool {
        var scanner = MediaTypeScanner(bytes: Array(text.utf8))
        return scanner.mediaType()
    }
}

/// A cursor over the bytes of a media type; each method consumes what it names.
private struct MediaTypeScanner {
    let bytes: [UInt8]
    var index = 0

    mutating func mediaType() -> Bool {
        // RFC 9110 §5.5: a field value has no trailing whitespace (leading whitespace fails
        // the type token below).
        if let last = bytes.last, Self.isWhitespace(last) { return false }
        guard token(), take(UInt8(ascii: "/")), token() else { return false }
        // parameters = *( OWS ";" OWS [ parameter ] )
        while index < bytes.count {
            skipWhitespace()
            guard take(UInt8(ascii: ";")) else { return false }
            skipWhitespace()
            // An empty parameter: the text ends, or the next ";" follows.
            if index == bytes.count || bytes[index] == UInt8(ascii: ";") { continue }
            guard parameter() else { return false }
        }
        return true
    }

    /// `parameter-name "=" parameter-value`, without whitespace around "=".
    private mutating func parameter() -> Bool {
        guard token(), take(UInt8(ascii: "=")) else { return false }
        return quotedString() || token()
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// OWS (RFC 9110 §5.6.3).
    private mutating func skipWhitespace() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
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

    /// HTAB, SP and VCHAR: what qdtext and quoted-pair allow besides obs-text.
    private static func isQuotable(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x7E).contains(byte)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }
}
