/// Writes a record's fields as compact bytes: unsigned LEB128 for integers and lengths,
/// the IEEE 754 bit pattern for doubles, a length and UTF-8 for strings. `RecordReader`
/// reads them back in the same order. Nothing on the wire or on disk uses this: it is how
/// retained records sit in memory (`ChunkedRecordLog`).
struct RecordWriter {
    var bytes: [UInt8]

    init(bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    mutating func write(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Zigzag, so that small negative numbers stay short too.
    mutating func write(_ value: Int) {
        write(UInt64(bitPattern: Int64((value << 1) ^ (value >> (Int.bitWidth - 1)))))
    }

    mutating func write(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    mutating func write(_ value: Double) {
        write(value.bitPattern)
    }

    mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            write(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func write(_ text: String?) {
        write(text != nil)
        if let text { write(text) }
    }

    mutating func write(_ value: some Collection<UInt8>) {
        write(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func write(_ value: [UInt8]?) {
        write(value != nil)
        if let value { write(value) }
    }

    mutating func write(_ values: [String]) {
        write(UInt64(values.count))
        for value in values { write(value) }
    }

    /// Pairs sorted by key, so equal dictionaries give equal bytes.
    mutating func write(_ pairs: [String: String]) {
        write(UInt64(pairs.count))
        for key in pairs.keys.sorted() {
            write(key)
            write(pairs[key] ?? "")
        }
    }
}

/// Reads what a `RecordWriter` wrote, field by field in the same order.
///
/// The bytes always come from a `RecordWriter` of the same build, so a read past the end
/// is a programming error: it asserts in debug builds and reads zeros and empty values
/// otherwise, never out of bounds.
struct RecordReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    var isAtEnd: Bool { position >= bytes.endIndex }

    mutating func readUInt64() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.endIndex, shift < 64 {
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        assertionFailure("a record read past its end")
        return value
    }

    mutating func readInt() -> Int {
        let zigzag = readUInt64()
        return Int(truncatingIfNeeded: Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
    }

    mutating func readBool() -> Bool {
        guard position < bytes.endIndex else {
            assertionFailure("a record read past its end")
            return false
        }
        defer { position += 1 }
        return bytes[position] != 0
    }

    mutating func readDouble() -> Double {
        Double(bitPattern: readUInt64())
    }

    mutating func readBytes() -> [UInt8] {
        Array(readSlice())
    }

    mutating func readOptionalBytes() -> [UInt8]? {
        readBool() ? readBytes() : nil
    }

    mutating func readString() -> String {
        String(decoding: readSlice(), as: UTF8.self)
    }

    mutating func readOptionalString() -> String? {
        readBool() ? readString() : nil
    }

    mutating func readStrings() -> [String] {
        let count = readUInt64()
        var values: [String] = []
        values.reserveCapacity(Int(min(count, 4096)))
        for _ in 0..<count where !isAtEnd { values.append(readString()) }
        return values
    }

    mutating func readDictionary() -> [String: String] {
        let count = readUInt64()
        var pairs: [String: String] = [:]
        for _ in 0..<count where !isAtEnd {
            let key = readString()
            pairs[key] = readString()
        }
        return pairs
    }

    private mutating func readSlice() -> ArraySlice<UInt8> {
        let length = readUInt64()
        let available = bytes.endIndex - position
        guard length <= UInt64(available) else {
            assertionFailure("a record read past its end")
            position = bytes.endIndex
            return []
        }
        defer { position += Int(length) }
        return bytes[position..<position + Int(length)]
    }
}
