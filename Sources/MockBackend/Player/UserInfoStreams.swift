import MockBackendAPI
import MockBackendHTTP
import ServerSentEvents

/// The user-info streams, one per user (`userinfo/<userId>`): the one owner of what they
/// send and to whom.
///
/// A connection subscribes as a member of its session's audience (`EventStream`), so the
/// link between a connection and its session lives in one place, the stream; a session's
/// end is one atomic step there (`EventStream.endAudience`): its last frame is logged with
/// an id for that session only, sent to its connections, and ends them — and a connection
/// of that session that opens in the same instant gets the same frame and end. The
/// stream sends deltas (`ReplayPolicy.deltas`), has no heartbeat, and closes a connection
/// after `idleTimeout` without an event, as the real backend does.
final class UserInfoStreams: Sendable {
    private let registry: EventStreamRegistry
    private let settings: PlayerSettings

    init(registry: EventStreamRegistry, settings: PlayerSettings) {
        self.registry = registry
        self.settings = settings
    }

    /// The stream of a user, created on first use.
    func stream(of userId: Int) -> EventStream {
        registry.stream(
            named: "userinfo/\(userId)",
            settings: EventStreamSettings(
                heartbeat: false, replay: .deltas,
                idleTimeout: settings.userInfoIdleTimeout > .zero ? settings.userInfoIdleTimeout : nil))
    }

    /// Forgets the stream of a user that is gone.
    func removeStream(of userId: Int) {
        registry.remove(named: "userinfo/\(userId)")
    }

    /// A session has begun: the events of its user's stream from now on are its own.
    func sessionBegan(_ session: PlayerSession) {
        stream(of: session.userId).openAudience(session.sessionId)
    }

    /// The stream response for a connection of `session` (checked live by the caller).
    func response(for request: HTTPRequest, session: PlayerSession, endpoint: SSEEndpoint) throws -> HTTPResponse {
        try endpoint.response(for: request, stream: stream(of: session.userId), audience: session.sessionId)
    }

    /// Sends a posting to every connection of the user, once per variant in force.
    func publish(_ posting: BalanceUpdateBody, userId: Int) {
        let types: [String] =
            switch settings.balanceUpdateVariants {
            case .both: [UserInfoMessageType.balanceUpdate, UserInfoMessageType.balanceUpdateV2]
            case .v1: [UserInfoMessageType.balanceUpdate]
            case .v2: [UserInfoMessageType.balanceUpdateV2]
            }
        let stream = stream(of: userId)
        for type in types { stream.publish(UserInfoEnvelope(type: type, body: posting)) }
    }

    /// Ends the session's connections with `message` as their last frame; returns how many.
    func sessionEnded<Body: Codable & Sendable>(
        _ session: PlayerSession, with message: UserInfoEnvelope<Body>, cause: StreamEndCause
    ) -> Int {
        stream(of: session.userId).endAudience(session.sessionId, with: StreamEvent(message), cause: cause)
    }
}
