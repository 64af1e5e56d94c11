/// Encodes events, comments and reconnection times as `text/event-stream` bytes
/// (WHATWG HTML §9.2.5).
///
/// Lines end in LF. Data containing CR, LF or CRLF becomes several `data:` lines, so it is
/// read back exactly. CR and LF in a type or id would end the field early; they are dropped.
public enum SSEEncoder {
    /// `id:`, `event:`, one `data:` per line, and the blank line that dispatches it.
    /// Works on UTF-8 bytes: CR and LF never occur inside a multi-byte character.
    public static func encode(_ event: ServerSentEvent, retry: Int? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(event.data.utf8.count + 32)
        if let retry { bytes += Array("retry: \(retry)\n".utf8) }
        if let id = event.id { appendField("id: ", singleLine: id, to: &bytes) }
        if let type = event.type { appendField("event: ", singleLine: type, to: &bytes) }
        bytes += dataPrefix
        if appendIfSingleLine(event.data, to: &bytes) {
            // One line, the usual case: copied whole instead of byte by byte.
            bytes += [10, 10]
            return bytes
        }
        var previousWasCR = false
        for byte in event.data.utf8 {
            switch byte {
            case 13:
                bytes.append(10)
                bytes += dataPrefix
                previousWasCR = true
            case 10:
                // The LF of a CRLF pair: the line already ended at its CR.
                if !previousWasCR {
                    bytes.append(10)
                    bytes += dataPrefix
                }
                previousWasCR = false
            default:
                bytes.append(byte)
                previousWasCR = false
            }
        }
        bytes += [10, 10]
        return bytes
    }

    private static let dataPrefix = Array("data: ".utf8)

    private static func appendField(_ name: StaticString, singleLine value: String, to bytes: inout [UInt8]) {
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        if !appendIfSingleLine(value, to: &bytes) {
            for byte in value.utf8 where byte != 10 && byte != 13 { bytes.append(byte) }
        }
        bytes.append(10)
    }

    /// Appends the UTF-8 of `text` and returns true when it holds no CR or LF; otherwise
    /// appends nothing and returns false. Scans the string's own storage when it has one.
    private static func appendIfSingleLine(_ text: String, to bytes: inout [UInt8]) -> Bool {
        let appended = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: { $0 == 10 || $0 == 13 }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if let appended { return appended }
        guard !text.utf8.contains(where: { $0 == 10 || $0 == 13 }) else { return false }
        bytes.append(contentsOf: text.utf8)
        return true
    }

    /// A comment block: one `:` line per line of `text`, then a blank line.
    public static func comment(_ text: String) -> [UInt8] {
        Array((lines(of: text).map { $0.isEmpty ? ":\n" : ": \($0)\n" }.joined() + "\n").utf8)
    }

    /// `retry: n`, telling the client how long to wait before reconnecting.
    public static func retry(milliseconds: Int) -> [UInt8] {
        Array("retry: \(max(0, milliseconds))\n\n".utf8)
    }

    /// A comment of exactly `size` bytes including its line ends, for clients whose HTTP
    /// stack holds back the first bytes of a response.
    public static func padding(size: Int) -> [UInt8] {
        guard size >= 3 else { return Array(":\n\n".utf8) }
        return [UInt8(ascii: ":")] + [UInt8](repeating: UInt8(ascii: " "), count: size - 3) + [10, 10]
    }

    /// Splits on CRLF, CR or LF, the three line ends a parser accepts.
    static func lines(of text: String) -> [Substring] {
        var result: [Substring] = []
        var start = text.startIndex
        var index = start
        while index < text.endIndex {
            let character = text[index]
            // "\r\n" is one Character in Swift, so all three endings are single characters.
            if character == "\n" || character == "\r" || character == "\r\n" {
                result.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        result.append(text[start..<text.endIndex])
        return result
    }

}
