import TestSupport
import Testing

@testable import MockBackend

@Suite("EventBoundaryScanner")
struct EventBoundaryScannerTests {
    /// Event ends (absolute offsets) when `bytes` is fed in the given pieces.
    private func ends(_ bytes: [UInt8], cuts: [Int]) -> [Int] {
        var scanner = EventBoundaryScanner()
        var result: [Int] = []
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            result += scanner.scan(bytes[start..<cut]).map { start + $0.upperBound }
            start = cut
        }
        return result
    }

    private static let stream = Array(
        (": connection established\n\nretry: 5000\n\nid: 1\nevent: started\ndata: {\"a\":1}\n\n"
            + ": keep-alive\n\ndata\n\nid: 2\r\ndata: two\r\n\r\nid: 3\rdata: three\r\rdatum: no\n\n"
            + "data:x\ndata:y\n\n").utf8)

    @Test func findsTheEventsAndOnlyThem() {
        let text = String(decoding: Self.stream, as: UTF8.self)
        var scanner = EventBoundaryScanner()
        let events = scanner.scan(Self.stream)
        let blocks = events.map { String(decoding: Self.stream[$0], as: UTF8.self) }
        #expect(
            blocks == [
                "id: 1\nevent: started\ndata: {\"a\":1}\n\n", "data\n\n", "id: 2\r\ndata: two\r\n\r",
                "\nid: 3\rdata: three\r\r", "data:x\ndata:y\n\n",
            ], "\(text)")
    }

    @Test func givesTheSameEventsWholeByteByByteAndSplitAtEveryIndex() {
        let whole = ends(Self.stream, cuts: [])
        #expect(whole.count == 5)
        #expect(ends(Self.stream, cuts: Array(1..<Self.stream.count)) == whole)
        for index in 1..<Self.stream.count {
            #expect(ends(Self.stream, cuts: [index]) == whole, "split at \(index)")
        }
    }

    @Test func aBlockThatBeganInAnEarlierWriteStartsAtZero() {
        var scanner = EventBoundaryScanner()
        #expect(scanner.scan(Array("data: a".utf8)).isEmpty)
        #expect(scanner.scan(Array("bc\n\ndata: d\n\n".utf8)) == [0..<4, 4..<13])
    }
}
