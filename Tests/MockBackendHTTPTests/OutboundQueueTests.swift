import TestSupport
import Testing

@testable import MockBackendHTTP

@Suite("OutboundQueue")
struct OutboundQueueTests {
    @Test func mergesStreamWritesUpToTheLimit() {
        var queue = OutboundQueue()
        queue.appendMerging([1, 2], limit: 4)
        queue.appendMerging([3, 4], limit: 4)
        queue.appendMerging([5], limit: 4)
        #expect(queue.front == .bytes([1, 2, 3, 4]))
        #expect(queue.unsentBytes == 5)
        queue.consumeBytes(3)
        #expect(queue.frontOffset == 3)
        #expect(queue.unsentBytes == 2)
        queue.consumeBytes(1)
        #expect(queue.front == .bytes([5]))
        #expect(queue.unsentBytes == 1)
    }

    @Test func neverMergesIntoShapedSegmentsOrAcrossAPause() {
        var queue = OutboundQueue()
        queue.append(.bytes([1]))
        queue.appendMerging([2], limit: 100)
        queue.append(.pause(milliseconds: 5))
        queue.appendMerging([3], limit: 100)
        queue.appendMerging([4], limit: 100)
        #expect(queue.front == .bytes([1]))
        queue.popFront()
        #expect(queue.front == .bytes([2]))
        queue.popFront()
        #expect(queue.front == .pause(milliseconds: 5))
        queue.popFront()
        #expect(queue.front == .bytes([3, 4]))
        #expect(queue.unsentBytes == 2)
    }

    @Test func startsAFreshSegmentOnceDrained() {
        var queue = OutboundQueue()
        queue.appendMerging([1], limit: 100)
        queue.consumeBytes(1)
        #expect(queue.isEmpty)
        queue.appendMerging([2], limit: 100)
        #expect(queue.front == .bytes([2]))
        #expect(queue.frontOffset == 0)
    }
}

/// Delivery marks: due once the bytes before them are written, however writes merge.
@Suite("OutboundQueue delivery marks")
struct OutboundQueueMarkTests {
    @Test func aMarkIsDueOnceTheBytesBeforeItAreWritten() {
        var queue = OutboundQueue()
        queue.appendMerging([1, 2, 3], limit: 100)
        queue.append(.delivered(events: 2))
        queue.appendMerging([4, 5], limit: 100)
        queue.append(.delivered(events: 1))
        queue.append(.dropped(events: 4))
        // Merged into one segment, the marks still sit after bytes 3 and 5.
        #expect(queue.front == .bytes([1, 2, 3, 4, 5]))
        #expect(queue.takeDueMarks() == .init())
        queue.consumeBytes(2)
        #expect(queue.takeDueMarks() == .init())
        queue.consumeBytes(1)
        #expect(queue.takeDueMarks() == .init(delivered: 2, dropped: 0))
        queue.consumeBytes(2)
        #expect(queue.takeDueMarks() == .init(delivered: 1, dropped: 4))
        #expect(queue.takeDueMarks() == .init())
    }

    @Test func aMarkWithNothingBeforeItIsDueAtOnce() {
        var queue = OutboundQueue()
        queue.append(.dropped(events: 1))
        #expect(queue.takeDueMarks() == .init(delivered: 0, dropped: 1))
    }

    @Test func removingEverythingKeepsOnlyTheMarksAlreadyDue() {
        var queue = OutboundQueue()
        queue.append(.bytes([1]))
        queue.append(.delivered(events: 1))
        queue.append(.bytes([2]))
        queue.append(.delivered(events: 5))
        queue.consumeBytes(1)
        // A close: the second write never goes, its events are never delivered.
        queue.removeAll()
        #expect(queue.takeDueMarks() == .init(delivered: 1, dropped: 0))
        queue.append(.bytes([3]))
        queue.append(.delivered(events: 1))
        #expect(queue.takeDueMarks() == .init())
        queue.consumeBytes(1)
        #expect(queue.takeDueMarks() == .init(delivered: 1, dropped: 0))
    }

    @Test func pacedBytesCountAsTheirPiecesAreWritten() {
        var queue = OutboundQueue()
        queue.append(.paced(PacedBytes([1, 2, 3, 4], cut: .every(2), pauseMilliseconds: 1)))
        queue.append(.delivered(events: 1))
        queue.expandPacedFront()
        queue.consumeBytes(2)
        #expect(queue.takeDueMarks() == .init())
        queue.popFront()  // the pause
        queue.expandPacedFront()
        queue.consumeBytes(2)
        #expect(queue.takeDueMarks() == .init(delivered: 1, dropped: 0))
    }
}
