import Foundation
import MockBackendTesting

/// What arrived on a connection and when, read on a thread of its own blocking in `recv`:
/// the arrival times are the kernel's, not those of a test task that a busy machine may
/// hold up for seconds. For tests that assert that bytes did NOT arrive before a moment.
///
/// Invariant: the thread holds the client, so its socket stays open until the thread has
/// stopped reading (the peer closed, as the server does when it stops, or `limit` passed).
/// Closed any earlier, its number could go to another test's socket, whose bytes this
/// thread would then take. Tests never close the client themselves.
final class TimedReads: @unchecked Sendable {
    /// One read: when it returned and what it got.
    struct Read {
        let at: ContinuousClock.Instant
        let bytes: [UInt8]
    }

    private let lock = NSLock()
    private var reads: [Read] = []
    private var ended: ContinuousClock.Instant?
    private let client: RawHTTPClient

    /// Starts reading `client`'s socket until it closes (or `limit` passes).
    init(_ client: RawHTTPClient, limit: Duration = .seconds(60)) {
        self.client = client
        let fd = client.fileDescriptor
        let deadline = ContinuousClock.now + TestTiming.scaled(limit)
        if !client.buffer.isEmpty { reads.append(Read(at: .now, bytes: client.takeBuffer())) }
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while ContinuousClock.now < deadline {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) > 0 else { continue }
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                let now = ContinuousClock.now
                lock.lock()
                if count > 0 { reads.append(Read(at: now, bytes: Array(chunk[0..<count]))) } else { ended = now }
                lock.unlock()
                if count <= 0 { return }
            }
        }
    }

    /// When the first read that completes `text` (counting all bytes so far) returned.
    func arrival(of text: String) -> ContinuousClock.Instant? {
        let needle = Array(text.utf8)
        lock.lock()
        defer { lock.unlock() }
        var bytes: [UInt8] = []
        for read in reads {
            bytes += read.bytes
            if RawHTTPClient.find(needle, in: bytes) != nil { return read.at }
        }
        return nil
    }

    /// When the peer closed the connection, if it has.
    var closedAt: ContinuousClock.Instant? {
        lock.lock()
        defer { lock.unlock() }
        return ended
    }

    /// Waits (suspending) until `text` has arrived; returns when it did.
    func waitFor(_ text: String, timeout: Duration = .seconds(20)) async -> ContinuousClock.Instant? {
        var arrived: ContinuousClock.Instant?
        _ = await eventually(timeout: timeout) {
            arrived = arrival(of: text)
            return arrived != nil
        }
        return arrived
    }
}
