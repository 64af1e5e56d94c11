import Foundation
import MockBackendSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Following a job on a WebSocket: one socket per segment, never reopened after a drop —
/// V1's progress socket has no resume, so polling takes over at once.
extension JobTracker {
    /// How reading a socket ended.
    enum SocketEnding {
        /// The job's final message, with the outcome it announces.
        case final(Kind.Event, JobOutcome<Kind.Summary>)
        /// Anything else: a failure, an end without a close frame (what RFC 6455 §7.1.5 calls
        /// 1006), a close frame before the final message, silence, or a segment that is no
        /// longer current.
        case dropped
    }

    /// Reads the job's WebSocket until its final message, which ends tracking with its
    /// outcome, or until it drops, which hands over to polling.
    /// - Parameter replayed: events earlier sockets reported. The server sends the job's
    ///   whole history first on every connect (`openapi/openapi.yaml`, operation
    ///   `importProgressWebSocket`), so this many first events are skipped.
    func followSocket(
        _ transport: any WebSocketTransport, decode: @escaping @Sendable (String) throws -> Kind.Event?,
        segment: Int, replayed: Int
    ) async {
        var request = URLRequest(url: streamURL)
        for (name, value) in configuration.headers { request.setValue(value, forHTTPHeaderField: name) }
        let connection: any WebSocketConnection
        do {
            connection = try await transport.connect(request)
        } catch {
            // No connection, or a refused upgrade (404, 503, …): polling finds out what that
            // means for the job.
            apply(.streamEnded(segment: segment))
            return
        }
        // Cancelling this task (a halt) closes the socket, which ends a pending receive.
        let ending = await withTaskCancellationHandler {
            await read(connection, decode: decode, segment: segment, replayed: replayed)
        } onCancel: {
            connection.cancel(code: WebSocketCloseCode.goingAway)
        }
        switch ending {
        case .final(let event, let outcome):
            connection.cancel(code: WebSocketCloseCode.normalClosure)
            await end(with: outcome, confirmingIf: Kind.outcomeNeedsStatus(event))
        case .dropped:
            connection.cancel(code: WebSocketCloseCode.goingAway)
            apply(.streamEnded(segment: segment))
        }
    }

    /// Reads messages, reporting each event, while a watchdog times the silence between them.
    private func read(
        _ connection: any WebSocketConnection, decode: @Sendable (String) throws -> Kind.Event?, segment: Int,
        replayed: Int
    ) async -> SocketEnding {
        let elapsed = startStopwatch(on: self.clock)
        let watchdog = LockedValue(SilenceWatchdog(silence: configuration.webSocketSilence))
        let watcher =
            configuration.webSocketSilence > .zero
            ? Task { [clock] in
                // Silent: closing the socket ends the pending receive, and polling takes over.
                if await Self.watch(watchdog, elapsed: elapsed, on: clock) {
                    connection.cancel(code: WebSocketCloseCode.goingAway)
                }
            } : nil
        defer { watcher?.cancel() }
        var toSkip = replayed
        while true {
            guard let message = try? await connection.receive() else { return .dropped }
            watchdog.withLock { $0.heard(at: elapsed()) }
            switch message {
            case .text(let text):
                // A type the kind does not know, or a known type whose fields do not match,
                // is skipped: if it was the final one, polling still tells the outcome.
                guard let event = try? decode(text) else { continue }
                if toSkip > 0 {
                    toSkip -= 1
                    continue
                }
                guard reportSocketEvent(event, segment: segment) else { return .dropped }
                if let outcome = Kind.outcome(of: event) { return .final(event, outcome) }
            case .binary, .ping:
                continue
            case .close:
                // Reading stops at the final message, before the server's close 1000: a close
                // frame that gets here came before the end (1001 going away, 1011, …).
                return .dropped
            }
        }
    }

    /// Reports an event of the socket of `segment` while that segment is current; false once
    /// it is not (a suspend or the end came first), and the socket is left.
    private func reportSocketEvent(_ event: Kind.Event, segment: Int) -> Bool {
        shared.withLock { shared in
            guard shared.machine.segment == segment, shared.machine.phase == .streaming else { return false }
            shared.socketEvents += 1
            sink.yield(.event(event, id: nil))
            return true
        }
    }

    /// Sleeps on `clock` until `watchdog` finds the socket silent (true), or until the task is
    /// cancelled (false).
    static func watch(
        _ watchdog: LockedValue<SilenceWatchdog>, elapsed: @Sendable () -> Duration, on clock: any Clock<Duration>
    ) async -> Bool {
        while true {
            switch watchdog.withLock({ $0.check(at: elapsed()) }) {
            case .silent:
                return true
            case .wait(let wait):
                do {
                    try await clock.sleep(for: wait, tolerance: nil)
                } catch {
                    return false
                }
            }
        }
    }
}
