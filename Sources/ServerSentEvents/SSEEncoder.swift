/// Encodes events, comments and reconnection times as `text/event-stream` bytes
/// (WHATWG HTML §9.2.5).
///
/// Lines end in LF. Data containing CR, LF or CRLF becomes several `data:` lines, so it is
/// read back exactly. CR and LF in a type or id would end the field early; they are dropped.
public enum SSEEncoder {
    /// `id:`, `event:`, one `data:` per line, and the blank line that dispatches it.
    public static func encode(_ event: ServerSentEvent, retry: Int? = nil) -> [UInt8] {
        var text = ""
        if let retry { text += "retry: \(retry)\n" }
        if let id = event.id { text += "id: \(singleLine(id))\n" }
        if let type = event.type { text += "event: \(singleLine(type))\n" }
        for line in lines(of: event.data) { text += "data: \(line)\n" }
        text += "\n"
        return Array(text.utf8)
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

    private static func singleLine(_ text: String) -> String {
        String(text.filter { $0 != "\n" && $0 != "\r" && $0 != "\r\n" })
    }
}
