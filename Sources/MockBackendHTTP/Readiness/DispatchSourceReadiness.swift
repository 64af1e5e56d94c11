import Dispatch
import MockBackendSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Readiness from Dispatch sources: a read source for the connection's life, and a write
/// source made on the first write that would block (most connections never need one).
final class DispatchSourceReadiness: SocketReadiness {
    private let fileDescriptor: Int32
    private let queue: DispatchQueue
    private let statistics: LockedValue<ServerStatistics>
    private let readSource: DispatchSourceRead
    private var writeSource: DispatchSourceWrite?
    private var writable: (() -> Void)?
    private var readSuspended = false
    private var writeArmed = false
    /// A read source fires again while the end of stream waits to be read.
    let peerHungUp = false

    init(fileDescriptor: Int32, queue: DispatchQueue, statistics: LockedValue<ServerStatistics>) {
        self.fileDescriptor = fileDescriptor
        self.queue = queue
        self.statistics = statistics
        readSource = DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue)
    }

    func activate(readable: @escaping () -> Void, writable: @escaping () -> Void) -> Bool {
        readSource.setEventHandler(handler: readable)
        self.writable = writable
        readSource.activate()
        return true
    }

    func suspendReading() {
        guard !readSuspended else { return }
        readSuspended = true
        readSource.suspend()
    }

    func resumeReading() {
        guard readSuspended else { return }
        readSuspended = false
        readSource.resume()
    }

    /// A read source is level-triggered: it fires again while input waits.
    func readAgainLater() {}

    func armWrite() -> Bool {
        guard !writeArmed else { return true }
        guard let source = writeSource ?? makeWriteSource() else { return false }
        writeArmed = true
        source.resume()
        return true
    }

    func disarmWrite() {
        guard writeArmed else { return }
        writeArmed = false
        writeSource?.suspend()
    }

    func cancel(closing closer: SocketCloser) {
        // Closing in the read source's cancel handler: closing earlier would let the kernel
        // reuse the number under a live source. A suspended source never runs its cancel
        // handler, so resume before cancelling.
        readSource.setCancelHandler { closer.close() }
        if readSuspended {
            readSuspended = false
            readSource.resume()
        }
        readSource.cancel()
        if let writeSource {
            if !writeArmed { writeSource.resume() }
            writeSource.cancel()
        }
        writeArmed = false
        writable = nil
    }

    /// The write source watches a duplicate of the socket. libdispatch on Linux shares one
    /// epoll registration between a read and a write source on the same descriptor, and
    /// re-arming one of them under load corrupts that shared state and crashes the process
    /// (swift-corelibs-libdispatch issue 833); separate descriptors keep them apart.
    private func makeWriteSource() -> DispatchSourceWrite? {
        let duplicate = dup(fileDescriptor)
        guard duplicate >= 0 else { return nil }
        let statistics = statistics
        statistics.withLock { $0.openDescriptors += 1 }
        let source = DispatchSource.makeWriteSource(fileDescriptor: duplicate, queue: queue)
        source.setEventHandler { [weak self] in self?.writable?() }
        source.setCancelHandler {
            _ = Platform.closeFD(duplicate)
            statistics.withLock { $0.openDescriptors -= 1 }
        }
        writeSource = source
        return source
    }
}
