/// The last `retention` records of a log, oldest first, kept as bytes in a few large
/// buffers rather than as one or more allocations per record.
///
/// Why: the journals and the event logs keep thousands of small records that are made
/// while thousands of connections come and go. Kept as objects of their own, those records
/// land between the connections' buffers, and once the connections close, the scattered
/// survivors pin the allocator's pages: the process stays near its peak size. Here what
/// outlives a burst of connections is a few dozen contiguous buffers, and the pages the
/// connections used go back to the system (`Platform.releaseFreedMemory`).
///
/// Each record is a `RecordWriter`'s bytes after their length (four bytes, little-endian).
/// A chunk grows like any array until it holds `chunkBytes`; the next one starts with that
/// much room.
///
/// Invariant: the chunks hold `storedCount` records in order; readers skip the first
/// `storedCount - count` of them, which are past retention; the oldest chunk is dropped as
/// soon as every record in it is past retention, so at most one chunk's worth is kept
/// beyond `retention`.
struct ChunkedRecordLog {
    private struct Chunk {
        var bytes: [UInt8] = []
        var count = 0
    }

    /// Records kept for readers.
    let retention: Int
    private var chunks: [Chunk] = []
    private var storedCount = 0
    /// How many bytes a chunk takes before the next one starts.
    static let chunkBytes = 32 * 1024

    init(retention: Int) {
        self.retention = max(0, retention)
    }

    /// Records a reader sees: at most `retention`.
    var count: Int { min(storedCount, retention) }

    /// The buffers the records are in.
    var chunkCount: Int { chunks.count }

    /// Appends one record, written by `write`, and lets the oldest go past retention.
    mutating func append(_ write: (inout RecordWriter) -> Void) {
        guard retention > 0 else { return }
        if chunks.isEmpty || chunks[chunks.count - 1].bytes.count >= Self.chunkBytes {
            var chunk = Chunk()
            // The first chunk grows as needed (most logs are short); a log that filled one
            // will fill the next, so it is made whole at once.
            if !chunks.isEmpty { chunk.bytes.reserveCapacity(Self.chunkBytes + Self.chunkBytes / 8) }
            chunks.append(chunk)
        }
        let last = chunks.count - 1
        // The writer takes the chunk's buffer for the append (one owner: no copy) and gives
        // it back with the record after a four-byte length.
        var writer = RecordWriter()
        swap(&writer.bytes, &chunks[last].bytes)
        let start = writer.bytes.count
        for _ in 0..<4 { writer.bytes.append(0) }
        write(&writer)
        let length = UInt32(clamping: writer.bytes.count - start - 4)
        for byte in 0..<4 { writer.bytes[start + byte] = UInt8(truncatingIfNeeded: length >> (8 * byte)) }
        swap(&writer.bytes, &chunks[last].bytes)
        chunks[last].count += 1
        storedCount += 1
        while let oldest = chunks.first, storedCount - oldest.count >= retention {
            chunks.removeFirst()
            storedCount -= oldest.count
        }
    }

    /// Calls `read` on the records a reader sees from the `start`-th on (0 is the oldest)
    /// until it returns false. Chunks wholly before `start` are skipped without reading.
    func forEachRecord(from start: Int = 0, _ read: (inout RecordReader) throws -> Bool) rethrows {
        var skip = storedCount - count + max(0, start)
        for chunk in chunks {
            if skip >= chunk.count {
                skip -= chunk.count
                continue
            }
            let bytes = chunk.bytes
            var index = 0
            while index + 4 <= bytes.count {
                var length = 0
                for byte in 0..<4 { length |= Int(bytes[index + byte]) << (8 * byte) }
                let start = index + 4
                index = min(start + length, bytes.count)
                if skip > 0 {
                    skip -= 1
                    continue
                }
                var record = RecordReader(bytes[start..<index])
                guard try read(&record) else { return }
            }
        }
    }

    /// Every record a reader sees, decoded by `decode`, oldest first.
    func map<Record>(_ decode: (inout RecordReader) throws -> Record) rethrows -> [Record] {
        var records: [Record] = []
        records.reserveCapacity(count)
        try forEachRecord { record in
            records.append(try decode(&record))
            return true
        }
        return records
    }

    /// Forgets every record.
    mutating func removeAll() {
        chunks = []
        storedCount = 0
    }
}
