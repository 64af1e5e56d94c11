import Foundation
import MockBackendAPI
import ServerSentEvents

/// The read loop: one event source per session (a re-login starts the next), which
/// reconnects, suspends and resumes on its own; each is drained before the next starts,
/// so the last event id the next one sends is exact.
extension UserInfoStreamDriver {
    func run() async {
        var postings = PostingDeduplicator()
        // A re-login is allowed once, and again only after a message has arrived since.
        var mayRelogin = true
        while let source = connect() {
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
            if ended(terminal: terminal) { break }
            if Self.isForbidden(failure), case .reloginOnce(let authenticator) = configuration.onForbidden, mayRelogin {
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
        sink.finish()
    }

    /// Starts the event source of the session, unless the stream is over. It starts under
    /// the lock, and suspended when the stream is (a `suspend()` during a re-login), so a
    /// `suspend()` that sees it always suspends a started source.
    private func connect() -> EventSource? {
        state.withLock { state in
            guard state.phase == .running || state.phase == .suspended else { return nil }
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
            source.start()
            if state.phase == .suspended { source.suspend() }
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

    /// Whether the stream is over now that its source ended: `stop()`, or a terminal
    /// message; `messages` then ends normally.
    private func ended(terminal: Bool) -> Bool {
        state.withLock { state in
            if terminal { state.phase = .stopped }
            return state.phase == .stopped
        }
    }

    private func relogin(through authenticator: PlayerAuthenticator) async throws {
        let fresh = try await authenticator.renew(replacing: state.withLock { $0.sessionId })
        state.withLock { $0.sessionId = fresh }
    }

    private static func isForbidden(_ failure: (any Error)?) -> Bool {
        guard let failure = failure as? EventSourceError, case .unauthorized = failure.reason else { return false }
        return true
    }
}
