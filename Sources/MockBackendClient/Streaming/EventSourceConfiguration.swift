import Foundation
import Logging
import ServerSentEvents

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers a URL session's authentication challenges, such as the server-trust challenge
/// in which an app pins or trusts a certificate (`TrustedCertificate` makes one).
public typealias AuthenticationChallengeHandler =
    @Sendable (URLAuthenticationChallenge) -> (URLSession.AuthChallengeDisposition, URLCredential?)

/// Everything an `EventSource` can be told before it starts.
public struct EventSourceConfiguration: Sendable {
    /// Backoff between reconnection attempts.
    public var policy = ReconnectionPolicy()
    /// Extra request headers (`Authorization`, `X-SessionId`, ...), set on every request,
    /// over those of a request provider's request.
    public var headers: [String: String] = [:]
    /// The Last-Event-ID to send on the first connection, to resume a stream read earlier.
    public var lastEventID: String?
    /// Longest silence on an open stream before the connection counts as failed.
    /// Default 5 minutes; streams with heartbeats can use much less.
    public var idleTimeout: Duration = .seconds(300)
    /// Called once reconnection gives up, with the last event id seen; the source stays in
    /// `.polling` until it returns. Without one, the source stops with `.retriesExhausted`.
    public var pollingFallback: (@Sendable (_ lastEventID: String) async -> Void)?
    /// Asked of each event right after it is delivered, in the read loop itself, before the
    /// rest of the body is read or a reconnection is scheduled: a reason stops the source
    /// for good there, so a terminal message (a session expiry) cannot race the reconnect
    /// that the stream's end would otherwise start. Default nil: no event stops the source.
    public var stopWhen: (@Sendable (ServerSentEvent) -> EventSourceStopReason?)?
    /// The longest line and largest event accepted from the server (defaults 1 MiB and
    /// 8 MiB); past them the source stops with `.streamLimitExceeded` instead of buffering.
    public var parserLimits: SSEParserLimits
    /// Where the source tells what it does: each connection (debug), open (info), event
    /// (trace), backoff (info), polling hand-over (notice), stop (info, or warning on a
    /// failure). Nil, the default, logs nothing.
    public var logger: Logger?
    /// Makes the configuration of the source's `URLSession` (TLS settings, proxies,
    /// `httpAdditionalHeaders`); nil, the default, for an ephemeral one. The source sets
    /// its idle timeout on it and turns caching off.
    public var sessionConfiguration: (@Sendable () -> URLSessionConfiguration)?
    /// Answers the session's authentication challenges: on Apple systems, the server-trust
    /// challenge, to pin a certificate or trust a self-signed one
    /// (`TrustedCertificate(pem:).challengeHandler`). FoundationNetworking on Linux checks
    /// certificates in libcurl against the system's trust store and never asks this
    /// handler about server trust. Nil, the default: the system's handling.
    public var challengeHandler: AuthenticationChallengeHandler?

    public init(
        policy: ReconnectionPolicy = ReconnectionPolicy(), headers: [String: String] = [:],
        lastEventID: String? = nil, idleTimeout: Duration = .seconds(300),
        pollingFallback: (@Sendable (_ lastEventID: String) async -> Void)? = nil,
        parserLimits: SSEParserLimits = SSEParserLimits(), logger: Logger? = nil
    ) {
        self.parserLimits = parserLimits
        self.logger = logger
        self.policy = policy
        self.headers = headers
        self.lastEventID = lastEventID
        self.idleTimeout = idleTimeout
        self.pollingFallback = pollingFallback
    }
}
