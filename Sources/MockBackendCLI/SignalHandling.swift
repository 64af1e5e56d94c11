import Dispatch
import MockBackend
import MockBackendHTTP
import MockBackendSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM stop the server gracefully and exit 0; a second signal exits at once.
/// Works as PID 1, where the kernel drops signals that have no handler. The line that says
/// so goes through the log line queue (`output`), which gets a moment to be written before
/// the exit, and never holds up the stop when nobody reads standard output.
enum SignalHandling {
    /// Sources must stay alive for the life of the process.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    static func stopOnTermination(_ app: MockBackendApp, output: LogLineQueue) {
        // A client that goes away mid-write must not kill the process (TLS writes ignore
        // MSG_NOSIGNAL, so this is process-wide).
        signal(SIGPIPE, SIG_IGN)
        let stopping = LockedValue(false)
        for number in [SIGINT, SIGTERM] {
            // The default action must be ignored before the Dispatch source is created,
            // or the process dies on the signal before the source sees it.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler {
                let first = stopping.withLock { isStopping in
                    defer { isStopping = true }
                    return !isStopping
                }
                guard first else { exit(0) }
                output.enqueue(Array("mockbackend stopping (\(number == SIGINT ? "SIGINT" : "SIGTERM"))\n".utf8))
                Task {
                    await app.stop(gracePeriod: .milliseconds(1500))
                    output.flush(timeout: .milliseconds(400))
                    exit(0)
                }
            }
            source.activate()
            sources.append(source)
        }
    }
}
