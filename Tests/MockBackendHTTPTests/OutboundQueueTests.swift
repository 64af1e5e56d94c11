import TestSupport
import Testing

@testable import MockBackendHTTP

@Suite("OutboundQueue", .fewAtATime)
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
