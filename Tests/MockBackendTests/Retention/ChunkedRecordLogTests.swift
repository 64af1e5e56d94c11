import TestSupport
import Testing

@testable import MockBackend

@Suite("ChunkedRecordLog and record coding")
struct ChunkedRecordLogTests {
    private func log(retention: Int, records: Range<Int>, payload: Int = 0) -> ChunkedRecordLog {
        var log = ChunkedRecordLog(retention: retention)
        for number in records {
            log.append { record in
                record.write(number)
                record.write([UInt8](repeating: UInt8(truncatingIfNeeded: number), count: payload))
            }
        }
        return log
    }

    private func numbers(_ log: ChunkedRecordLog) -> [Int] {
        log.map { record in record.readInt() }
    }

    @Test func keepsTheLastRecordsOldestFirst() {
        #expect(numbers(log(retention: 10, records: 0..<3)) == [0, 1, 2])
        let full = log(retention: 1000, records: 0..<5000, payload: 100)
        #expect(full.count == 1000)
        #expect(numbers(full) == Array(4000..<5000))
    }

    @Test(arguments: [1, 7, 999, 1000, 1001, 40_000])
    func recordsOfAnySizeCrossChunksIntact(payload: Int) {
        let log = log(retention: 50, records: 0..<120, payload: payload)
        let read = log.map { record in (record.readInt(), record.readBytes(), record.isAtEnd) }
        #expect(read.map(\.0) == Array(70..<120))
        for (number, bytes, atEnd) in read {
            #expect(bytes == [UInt8](repeating: UInt8(truncatingIfNeeded: number), count: payload))
            #expect(atEnd)
        }
    }

    /// The point of the type: many small records sit in a few large buffers.
    @Test func manyRecordsShareAFewBuffers() {
        let log = log(retention: 5000, records: 0..<6000, payload: 150)
        let bytes = 5000 * 160
        #expect(log.chunkCount <= bytes / ChunkedRecordLog.chunkBytes + 2)
        #expect(log.chunkCount > 1)
    }

    @Test func removeAllAndZeroRetentionKeepNothing() {
        var kept = log(retention: 10, records: 0..<20)
        kept.removeAll()
        #expect(kept.count == 0)
        #expect(numbers(kept).isEmpty)
        kept.append { $0.write(7) }
        #expect(numbers(kept) == [7])
        #expect(numbers(log(retention: 0, records: 0..<5)).isEmpty)
    }

    @Test func fieldsReadBackAsWritten() {
        let strings = ["", "a", "é𝄞\u{0}\n", String(repeating: "x", count: 300)]
        let integers = [0, 1, -1, 63, -64, 64, 127, 128, Int.max, Int.min]
        let doubles = [0.0, -0.0, 1.5, -1e300, .infinity, .leastNonzeroMagnitude]
        let headers = ["Accept": "text/event-stream", "X-Empty": "", "é": "ü"]
        var writer = RecordWriter()
        for text in strings { writer.write(text) }
        for number in integers { writer.write(number) }
        for number in doubles { writer.write(number) }
        writer.write(Double.nan)
        writer.write(UInt64.max)
        writer.write(nil as String?)
        writer.write("present" as String?)
        writer.write(true)
        writer.write(strings)
        writer.write(headers)
        writer.write([UInt8]([0, 255, 10]))

        var reader = RecordReader(writer.bytes[...])
        let readStrings = strings.map { _ in reader.readString() }
        let readIntegers = integers.map { _ in reader.readInt() }
        let readDoubles = doubles.map { _ in reader.readDouble() }
        let nan = reader.readDouble()
        let largest = reader.readUInt64()
        let absent = reader.readOptionalString()
        let present = reader.readOptionalString()
        let flag = reader.readBool()
        let list = reader.readStrings()
        let dictionary = reader.readDictionary()
        let bytes = reader.readBytes()
        #expect(readStrings == strings)
        #expect(readIntegers == integers)
        #expect(readDoubles.map(\.bitPattern) == doubles.map(\.bitPattern))
        #expect(nan.isNaN)
        #expect(largest == .max)
        #expect(absent == nil)
        #expect(present == "present")
        #expect(flag)
        #expect(list == strings)
        #expect(dictionary == headers)
        #expect(bytes == [0, 255, 10])
        #expect(reader.isAtEnd)
    }

    @Test func smallIntegersTakeOneByte() {
        var writer = RecordWriter()
        writer.write(5)
        writer.write(-5)
        #expect(writer.bytes.count == 2)
    }
}
