import Foundation
import MockBackendHTTP
import MockBackendSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits for test sockets to become readable on one thread of its own.
///
/// A test that waited in `poll` on its own task would hold one of the few threads Swift
/// concurrency runs every task on; with hundreds of tests running at once, the others would
/// queue behind those waits and a response that arrived in microseconds would be seen
/// seconds later. Here a waiting task only suspends, and this thread resumes it the moment
/// its socket is readable (or has closed) or its deadline passes.
final class ReadinessPoller: Sendable {
    static let shared = ReadinessPoller()

    private struct Waiter {
        let fileDescriptor: Int32
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct Waiters {
        var byID: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let waiters = LockedValue(Waiters())
    /// A pipe whose read end is always in the poll set: a byte on it makes the thread
    /// pick up waiters added since it started waiting.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    private init() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { fatalError("pipe failed: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        let thread = Thread { [self] in run() }
        thread.name = "mockbackend.test.poller"
        thread.start()
    }

    /// True once `fileDescriptor` is readable, closed or in error; false at `deadline`.
    func waitReadable(_ fileDescriptor: Int32, until deadline: ContinuousClock.Instant) async -> Bool {
        await withCheckedContinuation { continuation in
            waiters.withLock { waiters in
                waiters.nextID += 1
                waiters.byID[waiters.nextID] = Waiter(
                    fileDescriptor: fileDescriptor, deadline: deadline, continuation: continuation)
            }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    private func run() {
        while true {
            let snapshot = waiters.withLock { Array($0.byID) }
            var polled = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            polled += snapshot.map { pollfd(fd: $0.value.fileDescriptor, events: Int16(POLLIN), revents: 0) }
            let now = ContinuousClock.now
            let timeout =
                snapshot.map { entry in Self.milliseconds(until: entry.value.deadline, from: now) }.min() ?? -1
            _ = poll(&polled, nfds_t(polled.count), timeout)
            if polled[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 256)
                while read(wakeRead, &drain, drain.count) > 0 {}
            }
            let after = ContinuousClock.now
            var finished: [(CheckedContinuation<Bool, Never>, Bool)] = []
            waiters.withLock { waiters in
                for (index, entry) in snapshot.enumerated() {
                    let readable = polled[index + 1].revents != 0
                    guard readable || after >= entry.value.deadline else { continue }
                    waiters.byID[entry.key] = nil
                    finished.append((entry.value.continuation, readable))
                }
            }
            for (continuation, readable) in finished { continuation.resume(returning: readable) }
        }
    }

    /// Whole milliseconds from `now` to `deadline`, rounded up so a wait never ends early.
    private static func milliseconds(until deadline: ContinuousClock.Instant, from now: ContinuousClock.Instant)
        -> Int32
    {
        let left = deadline - now
        guard left > .zero else { return 0 }
        let milliseconds = left.wholeMilliseconds + 1
        return Int32(min(milliseconds, 60_000))
    }
}
