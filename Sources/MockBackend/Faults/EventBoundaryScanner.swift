/// Finds the events in `text/event-stream` body bytes, write after write, so a fault can
/// count events however the writes batched them (a flood or a replay is one write of many
/// events).
///
/// An event is what a client dispatches (WHATWG HTML §9.2.6): a block of lines ended by a
/// blank line, holding at least one `data` field. A block without one — a comment such as
/// a heartbeat, a bare `retry:` — dispatches nothing and is not counted. Lines end at CRLF,
/// LF or CR; an event ends right after the line end that dispatches it, at the CR of a CRLF.
struct EventBoundaryScanner {
    /// Bytes of the current line seen so far, up to the five that tell a `data` field.
    private var linePrefix: [UInt8] = []
    private var lineLength = 0
    private var previousWasCR = false
    private var blockHasData = false
    /// Where the current block began, relative to the start of the bytes being scanned
    /// (negative when it began in an earlier write).
    private var blockStart = 0

    private static let data = Array("data".utf8)

    /// The events that end in `bytes`: each range runs from the first byte of its block
    /// (0 when the block began in an earlier write) to just past the blank line that ends it.
    mutating func scan(_ bytes: some RandomAccessCollection<UInt8>) -> [Range<Int>] {
        var events: [Range<Int>] = []
        var offset = 0
        for byte in bytes {
            defer { offset += 1 }
            if previousWasCR {
                previousWasCR = false
                // The LF of a CRLF: the line ended at the CR. (An event that a blank CRLF
                // line dispatched ends at its CR, as the client dispatches it there: the
                // same however the writes are split.)
                if byte == 10 { continue }
            }
            guard byte == 10 || byte == 13 else {
                if linePrefix.count < 5 { linePrefix.append(byte) }
                lineLength += 1
                continue
            }
            previousWasCR = byte == 13
            endLine(at: offset, into: &events)
        }
        blockStart -= offset
        return events
    }

    private mutating func endLine(at offset: Int, into events: inout [Range<Int>]) {
        defer {
            linePrefix.removeAll(keepingCapacity: true)
            lineLength = 0
        }
        if lineLength == 0 {
            // A blank line ends the block; it is an event when it held data.
            if blockHasData { events.append(max(0, blockStart)..<(offset + 1)) }
            blockHasData = false
            blockStart = offset + 1
            return
        }
        // The field name runs to the first colon, or is the whole line.
        if linePrefix.starts(with: Self.data), linePrefix.count == 4 || linePrefix[4] == UInt8(ascii: ":") {
            blockHasData = true
        }
    }
}
