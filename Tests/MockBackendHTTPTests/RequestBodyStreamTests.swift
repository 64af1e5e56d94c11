import MockBackendSupport
import Testing

@testable import MockBackendHTTP

/// The bounded hand-over of a streamed request body, without sockets.
@Suite("RequestBodyStream")
struct RequestBodyStreamTests {
    @Test func partsComeOutInOrderJoinedAndThenTheEnd() {
        let body = RequestBodyStream(declaredLength: 6)
        #expect(body.next() == nil)
        body.append(Array("abc".utf8))
        body.append(Array("def".utf8))
        #expect(body.next() == .bytes(Array("abcdef".utf8)))
        #expect(body.next() == nil)
        body.finish()
        #expect(body.next() == .end)
        #expect(body.hasEnded)
        #expect(body.isStarted)
    }

    @Test func aFullBufferSaysStopUntilTheReaderIsBelowTheLowMark() {
        let body = RequestBodyStream(declaredLength: nil, highWater: 10, lowWater: 4)
        let rooms = LockedValue(0)
        body.onRoom { rooms.withLock { $0 += 1 } }
        #expect(body.append([UInt8](repeating: 1, count: 6)))
        #expect(!body.append([UInt8](repeating: 2, count: 6)))
        #expect(body.isFull)
        #expect(rooms.current == 0)
        _ = body.next()
        #expect(!body.isFull)
        #expect(rooms.current == 1)
        // Below the high mark: no stop, and no room signal owed.
        #expect(body.append([1]))
        _ = body.next()
        #expect(rooms.current == 1)
    }

    @Test func theReaderHearsOfEachArrivalOnce() {
        let body = RequestBodyStream(declaredLength: nil)
        let heard = LockedValue(0)
        body.whenReadable { heard.withLock { $0 += 1 } }
        #expect(heard.current == 0)
        body.append([1])
        body.append([2])
        #expect(heard.current == 1)
        // Something is there: at once.
        body.whenReadable { heard.withLock { $0 += 1 } }
        #expect(heard.current == 2)
    }

    @Test func aCancelledBodyDropsWhatComesAndFreesAFullProducer() {
        let body = RequestBodyStream(declaredLength: nil, highWater: 4, lowWater: 1)
        let rooms = LockedValue(0)
        body.onRoom { rooms.withLock { $0 += 1 } }
        #expect(!body.append([1, 2, 3, 4]))
        body.cancel()
        #expect(rooms.current == 1)
        #expect(body.append([5, 6, 7, 8]))
        #expect(!body.isFull)
        #expect(body.next() == nil)
        #expect(!body.isStarted)
    }

    @Test func anAbortedBodyEndsAsAborted() {
        let body = RequestBodyStream(declaredLength: 10)
        body.append([1, 2])
        body.abort()
        body.finish()
        #expect(body.next() == .bytes([1, 2]))
        #expect(body.next() == .aborted)
        #expect(body.next() == .aborted)
    }
}
