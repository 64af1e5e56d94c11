/// Reads the lines of an HTTP/1.1 message — the start line, field lines, chunk-size lines,
/// trailers (RFC 9112 §2.2) — for the request parser and the upstream response parser
/// alike.
enum HTTPLineReader {
    /// What `nextLine` found.
    enum LineResult {
        case line(ArraySlice<UInt8>)
        case needMore
        /// More than `limit` bytes before the line end.
        case tooLong
        /// A CR not followed by LF inside the line.
        case bareCR
    }

    /// The next line of `buffer` from `consumed` ending in LF (a CR before it dropped), at
    /// most `limit` bytes long without its line end; `consumed` moves past it. The answer
    /// depends only on the line's own bytes, never on how they were split or on what
    /// follows, so fed whole or in pieces a parser agrees.
    static func nextLine(in buffer: [UInt8], from consumed: inout Int, limit: Int) -> LineResult {
        let window = buffer[consumed..<min(buffer.count, consumed + limit + 2)]
        guard let newline = window.firstIndex(of: UInt8(ascii: "\n")) else {
            return buffer.count - consumed >= limit + 2 ? .tooLong : .needMore
        }
        var lineEnd = newline
        if lineEnd > consumed, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
        let line = buffer[consumed..<lineEnd]
        if line.count > limit { return .tooLong }
        if line.contains(UInt8(ascii: "\r")) { return .bareCR }
        consumed = newline + 1
        return .line(line)
    }
}
