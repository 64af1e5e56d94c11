import Foundation
import MockBackendAPI
import ServerSentEvents

/// The read loop: one event source per connection run (a suspension, a `reconnectNow()` or
/// a re-login starts the next), each drained before the next starts, so the last event id
/// the next one sends is exact.
extension UserInfoStream {
    /// What follows the end of one event source.
    private enum Next {
        /// `reconnectNow()` retired it: connect again at once.
        case connect
        /// `suspend()` retired it: wait for `resume()` or `stop()`, at the top of the loop.
        case waitForResume
        /// `stop()`, or a terminal message: `messages` ends normally.
        case finish
        /// It ended on its own: a 403, or another reason it gave.
        case ended
    }

    func run() async {
        var postings = PostingDeduplicator()
        var wakeups = self.wakeups.makeAsyncIterator()
        // A re-login is allowed once, and again only after a message has arrived since.
        var mayRelogin = true
        while true {
            // Suspended: wait for `resume()` or `stop()` (a suspension may come during a re-login).
            while state.withLock({ $0.phase == .suspended }) { _ = await wakeups.next() }
            guard let source = connect() else { break }
            var failure: (any Error)?
            var terminal = false
            do {
                for try await event in source.events {
                    let message = UserInfoMessage.decode(event.data)
                    record(message, id: event.id)
                    terminal = terminal || message.sessionEndReason != nil
                    mayRelogin = true
                    if case .balanceUpdate(let body, _) = message, !postings.isNew(body.postingId) { continue }
                    sink.yield(message)
                }
            } catch {
                failure = error
            }
            switch next(terminal: terminal) {
            case .connect, .waitForResume:
                continue
            case .finish:
                sink.finish()
                return
            case .ended:
                if Self.isForbidden(failure), case .reloginOnce(let authenticator) = configuration.onForbidden,
                    mayRelogin
                {
                    mayRelogin = false
                    do {
                        try await relogin(through: authenticator)
                        continue
                    } catch {
                        failure = error
                    }
                }
                state.withLock { $0.phase = .stopped }
                sink.finish(throwing: failure)
                return
            }
        }
        sink.finish()
    }

    /// Starts the next event source, unless the stream is no longer running. It starts
    /// under the lock, so a `suspend()` that sees it always stops a started source.
    private func connect() -> EventSource? {
        state.withLock { state in
            guard state.phase == .running else { return nil }
            var headers = [
                "X-SessionId": state.sessionId, "X-Session-Type": "others", "userId": String(userId),
            ]
            if let clientId = configuration.clientId { headers["X-Client-Id"] = clientId }
            var sourceConfiguration = EventSourceConfiguration(
                policy: configuration.policy, headers: headers,
                lastEventID: state.lastEventID.isEmpty ? nil : state.lastEventID,
                idleTimeout: configuration.idleTimeout)
            sourceConfiguration.stopWhen = Self.terminalStop
            let url = baseURL.appendingPathComponent("v2/player/\(userId)/information/updates")
            let source = EventSource(url: url, configuration: sourceConfiguration)
            state.source = source
            state.retired = false
            source.start()
            return source
        }
    }

    /// Checked by the event source as each frame arrives: a terminal type stops it before
    /// the server's close can schedule a reconnection, whether or not its body decodes.
    @Sendable static func terminalStop(_ event: ServerSentEvent) -> EventSourceStopReason? {
        UserInfoMessage.decode(event.data).sessionEndReason.map(EventSourceStopReason.sessionOver)
    }

    private func record(_ message: UserInfoMessage, id: String?) {
        state.withLock { state in
            // The parser gives each event the last event ID in force (WHATWG), nil when empty.
            state.lastEventID = id ?? ""
            if case .sessionExpiration(let body) = message { state.exit = body }
        }
    }

    private func next(terminal: Bool) -> Next {
        state.withLock { state in
            if state.phase == .stopped { return .finish }
            if terminal {
                state.phase = .stopped
                return .finish
            }
            guard state.retired else { return .ended }
            state.retired = false
            return state.phase == .suspended ? .waitForResume : .connect
        }
    }

    private func relogin(through authenticator: PlayerAuthenticator) async throws {
        let fresh = try await authenticator.renew(replacing: sessionId)
        state.withLock { $0.sessionId = fresh }
    }

    private static func isForbidden(_ failure: (any Error)?) -> Bool {
        guard let failure = failure as? EventSourceError, case .unauthorized = failure.reason else { return false }
        return true
    }
}
