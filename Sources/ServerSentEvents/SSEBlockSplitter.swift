/// One piece of an event stream as it came: the exact bytes of a whole block (its lines and
/// the blank line that ends it), or of comment lines that came before any field of a block.
public struct SSEBlock: Sendable, Equatable {
    /// The bytes, unchanged.
    public var bytes: [UInt8]
    /// Whether the block dispatches an event: it has a `data` field (WHATWG HTML §9.2.6).
    public var isEvent: Bool
    /// The value of its last `id` field, if it has one (an id with NUL is ignored, as a
    /// client ignores it).
    public var id: String?

    public init(bytes: [UInt8], isEvent: Bool, id: String? = nil) {
        self.bytes = bytes
        self.isEvent = isEvent
        self.id = id
    }
}

/// Splits an event stream into whole blocks as its bytes arrive, without changing a byte:
/// what a relay needs to pass another server's events on one by one, exactly as written,
/// and to put events of its own between them, never inside one.
///
/// Lines end at CRLF, LF or CR, as a client reads them (a CR ends its line at once; an LF
/// right after it belongs to that line end and is passed on with what follows). A block
/// ends at a blank line. Comment lines (`:` first) that come before any field of a block
/// are handed on at once, so a heartbeat comment still passes when it comes. Bytes of an
/// unfinished block are held until it ends; `maxBlockBytes` bounds them (a larger block is
/// handed on as it stands, an event if it has data so far).
public struct SSEBlockSplitter: Sendable {
    public let maxBlockBytes: Int
    private var block: [UInt8] = []
    /// Where the current line starts in `block`.
    private var lineStart = 0
    private var previousWasCR = false
    private var hasField = false
    private var hasData = false
    private var id: String?
    /// A UTF-8 byte order mark may open the stream; it is no part of the first field's name.
    private var atStreamStart = true

    public init(maxBlockBytes: Int = 1 << 20) {
        self.maxBlockBytes = maxBlockBytes
    }

    /// Feeds the next bytes; returns the blocks they complete, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [SSEBlock] {
        if let blocks = bytes.withContiguousStorageIfAvailable({ feed(buffer: $0) }) { return blocks }
        return Array(bytes).withUnsafeBufferPointer { feed(buffer: $0) }
    }

    /// The bytes between line ends are copied a run at a time, not byte by byte: this runs
    /// for every byte a proxy relays.
    private mutating func feed(buffer input: UnsafeBufferPointer<UInt8>) -> [SSEBlock] {
        var blocks: [SSEBlock] = []
        var index = 0
        while index < input.count {
            if previousWasCR {
                previousWasCR = false
                if input[index] == 10 {
                    // The LF of a CRLF: part of the line end already acted on.
                    block.append(10)
                    lineStart = block.count
                    index += 1
                    continue
                }
            }
            var end = index
            while end < input.count, input[end] != 10, input[end] != 13 { end += 1 }
            while index < end {
                // Up to one byte past the bound, where a block is handed on as it stands.
                let take = min(end - index, max(1, maxBlockBytes + 1 - block.count))
                block.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<(index + take)]))
                index += take
                if block.count > maxBlockBytes { emit(into: &blocks) }
            }
            guard index < input.count else { break }
            block.append(input[index])
            previousWasCR = input[index] == 13
            index += 1
            endLine(into: &blocks)
        }
        return blocks
    }

    /// The line ending at the last byte of `block` is complete.
    private mutating func endLine(into blocks: inout [SSEBlock]) {
        var line = block[lineStart..<(block.count - 1)]
        // An LF left over from the previous line's CRLF is no part of this line.
        if line.first == 10 { line = line.dropFirst() }
        lineStart = block.count
        if atStreamStart, !line.isEmpty {
            atStreamStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        }
        if line.isEmpty {
            // A blank line ends the block.
            emit(into: &blocks)
            return
        }
        if line.first == UInt8(ascii: ":") {
            if !hasField { emit(into: &blocks) }
            return
        }
        hasField = true
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = colon.map { line[line.startIndex..<$0] } ?? line[...]
        var value = colon.map { line[line.index(after: $0)...] } ?? line[line.endIndex...]
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        if name.elementsEqual("data".utf8) { hasData = true }
        if name.elementsEqual("id".utf8), !value.contains(0) { id = String(decoding: value, as: UTF8.self) }
    }

    /// The bytes held of an unfinished block (and an LF that may follow a CR): what a
    /// relay passes on as they are when its stream ends. The splitter starts afresh.
    public mutating func takeRemainder() -> [UInt8] {
        defer {
            block.removeAll(keepingCapacity: false)
            lineStart = 0
            hasField = false
            hasData = false
            id = nil
        }
        return block
    }

    /// Hands on what is held as one block and starts the next.
    private mutating func emit(into blocks: inout [SSEBlock]) {
        guard !block.isEmpty else { return }
        blocks.append(SSEBlock(bytes: block, isEvent: hasData, id: hasData ? id : nil))
        // A fresh array: the old buffer now belongs to the block handed on.
        block = []
        lineStart = 0
        hasField = false
        hasData = false
        id = nil
    }
}
