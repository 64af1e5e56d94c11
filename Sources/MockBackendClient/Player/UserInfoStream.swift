import Foundation
import MockBackendAPI
import MockBackendSupport
import ServerSentEvents

/// The user-info stream of a logged-in player, as typed messages: balance updates once per
/// posting, session expiration and termination, unknown types kept.
///
/// It reconnects with Last-Event-ID when the server closes an idle stream, and stops for
/// good — with the reason in `exitReason` — on `SESSION_EXPIRATION`, `SESSION_TERMINATED`
/// or a 403 (then `messages` throws `EventSourceError` with `.unauthorized`).
public final class UserInfoStream: Sendable {
    public let source: EventSource
    /// The messages, in order.
    public let messages: AsyncThrowingStream<UserInfoMessage, any Error>
    private let exit = LockedValue<SessionExpirationBody?>(nil)

    public init(
        baseURL: URL, userId: Int, sessionId: String, policy: ReconnectionPolicy = ReconnectionPolicy(),
        clientId: String? = nil
    ) {
        var headers = ["X-SessionId": sessionId, "X-Session-Type": "others", "userId": String(userId)]
        if let clientId { headers["X-Client-Id"] = clientId }
        let url = baseURL.appendingPathComponent("v2/player/\(userId)/information/updates")
        let source = EventSource(url: url, configuration: EventSourceConfiguration(policy: policy, headers: headers))
        self.source = source
        let (messages, sink) = AsyncThrowingStream.makeStream(of: UserInfoMessage.self)
        self.messages = messages
        let exit = exit
        Task {
            var postings = PostingDeduplicator()
            do {
                for try await event in source.events {
                    guard let message = try? UserInfoMessage.decode(event.data) else { continue }
                    switch message {
                    case .balanceUpdate(let body, _):
                        if postings.isNew(body.postingId) { sink.yield(message) }
                    case .sessionExpiration(let body):
                        exit.withLock { $0 = body }
                        sink.yield(message)
                        source.stop(.sessionOver(body.exitReason))
                    case .sessionTerminated(let body):
                        sink.yield(message)
                        source.stop(.sessionOver(body.reason))
                    case .unknown:
                        sink.yield(message)
                    }
                }
                sink.finish()
            } catch {
                sink.finish(throwing: error)
            }
        }
    }

    /// Connects.
    public func start() { source.start() }

    /// Stops for good.
    public func stop() { source.stop() }

    /// The `SESSION_EXPIRATION` that ended the stream, if one did.
    public var exitReason: SessionExpirationBody? { exit.withLock { $0 } }
}
