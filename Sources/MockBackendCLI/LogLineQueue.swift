import Dispatch
import MockBackendSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Log lines on their way to a file descriptor (standard output): a bounded queue, written
/// by one thread of its own, so that logging never waits for whoever reads the output.
///
/// Contract (`LogLineQueueTests`):
/// - `enqueue` never blocks on the descriptor. A reader that stops reading (a pipe nobody
///   drains, a paused `| less`, a stuck log shipper) fills the pipe and then the queue;
///   past `capacity` bytes of queued lines, new lines are dropped and counted.
/// - Lines that are written go out whole and in the order they were queued.
/// - Once the writer has caught up (nothing queued) after dropping lines, it reports how
///   many it dropped since the last report to `onCatchUp`, once; `droppedCount` is the
///   total since start.
final class LogLineQueue: Sendable {
    private struct State {
        var lines: [[UInt8]] = []
        var queuedBytes = 0
        /// The writer waits for a line.
        var writerWaiting = false
        /// The writer is writing lines it took from the queue.
        var writing = false
        var dropped = 0
        var unreported = 0
        var onCatchUp: (@Sendable (Int) -> Void)?
    }

    /// What the writer does next.
    private enum Step {
        case write([[UInt8]])
        case report(Int, (@Sendable (Int) -> Void)?)
        case wait
    }

    /// Bytes of lines the queue holds before it drops new ones. Default 1 MiB.
    let capacity: Int
    private let fileDescriptor: Int32
    private let state = LockedValue(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the writer thread. Nil when the system refuses a thread.
    init?(fileDescriptor: Int32, capacity: Int = 1 << 20) {
        self.fileDescriptor = fileDescriptor
        self.capacity = capacity
        guard startWriter() else { return nil }
    }

    /// Lines dropped since start because the queue was full or the descriptor failed.
    var droppedCount: Int { state.withLock { $0.dropped } }

    /// Called on the writer thread with the number of lines dropped since the last call, once
    /// it has written everything queued after dropping some.
    func onCatchUp(_ report: @escaping @Sendable (Int) -> Void) {
        state.withLock { $0.onCatchUp = report }
    }

    /// Queues one line (its newline included); drops and counts it when the queue is full.
    func enqueue(_ line: [UInt8]) {
        let wakeWriter = state.withLock { state -> Bool in
            guard state.queuedBytes + line.count <= capacity else {
                state.dropped += 1
                state.unreported += 1
                return false
            }
            state.lines.append(line)
            state.queuedBytes += line.count
            defer { state.writerWaiting = false }
            return state.writerWaiting
        }
        if wakeWriter { wake.signal() }
    }

    /// Waits up to `timeout` for everything queued to be written: before the process exits.
    /// False when the reader is still not reading at the deadline.
    @discardableResult
    func flush(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.lines.isEmpty && !$0.writing }) { return true }
            usleep(1000)
        }
        return false
    }

    private func nextStep() -> Step {
        state.withLock { state in
            guard state.lines.isEmpty else {
                defer {
                    state.lines = []
                    state.queuedBytes = 0
                }
                state.writing = true
                return .write(state.lines)
            }
            state.writing = false
            if state.unreported > 0 {
                defer { state.unreported = 0 }
                return .report(state.unreported, state.onCatchUp)
            }
            state.writerWaiting = true
            return .wait
        }
    }

    private func runWriter() {
        while true {
            switch nextStep() {
            case .write(let lines):
                let lost = LogLineWriting.write(lines, to: fileDescriptor)
                if lost > 0 {
                    state.withLock { state in
                        state.dropped += lost
                        state.unreported += lost
                    }
                }
            case .report(let count, let report):
                report?(count)
            case .wait:
                wake.wait()
            }
        }
    }

    /// A thread of its own (`DetachedThread`): it blocks in `write(2)` for as long as the
    /// reader does not read.
    private func startWriter() -> Bool {
        DetachedThread.start { [self] in runWriter() }
    }
}
