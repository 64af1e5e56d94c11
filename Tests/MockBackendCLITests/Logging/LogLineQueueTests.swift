import MockBackendSupport
import MockBackendTesting
import Testing

@testable import MockBackendCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `LogLineQueue`'s contract, on a pipe in this process: enqueueing never waits for the
/// reader; past the capacity lines are dropped and counted; the written ones come whole and
/// in order; each time the writer catches up it reports what it dropped since its last
/// report.
@Suite("Log line queue")
struct LogLineQueueTests {
    /// A pipe whose read end this test holds; the write end goes to the queue.
    private final class Pipe: Sendable {
        let read: Int32
        let write: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            (read, write) = (ends[0], ends[1])
        }

        deinit {
            close(read)
            close(write)
        }

        /// Reads until `done` holds for what was read and nothing more is coming, or the
        /// deadline passes.
        func read(until done: (String) -> Bool, timeout: Duration = .seconds(10)) -> String {
            var text: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                var descriptor = pollfd(fd: read, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else {
                    if done(String(decoding: text, as: UTF8.self)) { break }
                    continue
                }
                let count = chunk.withUnsafeMutableBytes { systemRead(read, $0.baseAddress, $0.count) }
                if count > 0 { text += chunk[0..<count] }
            }
            return String(decoding: text, as: UTF8.self)
        }

        private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
            #if canImport(Glibc)
            Glibc.read(descriptor, buffer, count)
            #else
            Darwin.read(descriptor, buffer, count)
            #endif
        }
    }

    @Test func aReaderThatStopsCostsDroppedLinesNotWaits() throws {
        let pipe = try Pipe()
        let queue = try #require(LogLineQueue(fileDescriptor: pipe.write, capacity: 16 * 1024))
        let reports = LockedValue<[Int]>([])
        queue.onCatchUp { count in reports.withLock { $0.append(count) } }
        let line = String(repeating: "x", count: 100)
        let start = ContinuousClock.now
        // Far more than the pipe (64 KiB) and the queue (16 KiB) hold: nobody reads yet.
        for number in 0..<5000 { queue.enqueue(Array("\(number) \(line)\n".utf8)) }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < TestTiming.scaled(.seconds(1)), "enqueueing waited \(elapsed)")
        // Nothing more is queued: the count is final. The writer reports whenever it has
        // caught up after drops, so before the reader read it may have reported some already
        // (the queue can fill while the pipe still has room); together they are the count.
        let dropped = queue.droppedCount
        #expect(dropped > 0)

        let text = pipe.read { _ in reports.withLock { $0.reduce(0, +) } == dropped }
        #expect(reports.withLock { $0.reduce(0, +) } == dropped)
        #expect(reports.withLock { $0.allSatisfy { $0 > 0 } })
        let numbers = text.split(separator: "\n").map { line -> Int in
            #expect(line.hasSuffix(" " + String(repeating: "x", count: 100)), "a line came cut: \(line)")
            return Int(line.split(separator: " ")[0]) ?? -1
        }
        #expect(numbers == numbers.sorted())
        #expect(numbers.first == 0)
        #expect(numbers.count + dropped == 5000)
        #expect(queue.flush(timeout: .seconds(1)))
    }

    @Test func aReaderThatKeepsUpLosesNothing() throws {
        let pipe = try Pipe()
        let queue = try #require(LogLineQueue(fileDescriptor: pipe.write))
        for number in 0..<2000 { queue.enqueue(Array("line \(number)\n".utf8)) }
        let text = pipe.read { $0.hasSuffix("line 1999\n") }
        #expect(text.split(separator: "\n") == (0..<2000).map { "line \($0)"[...] })
        #expect(queue.droppedCount == 0)
    }
}
