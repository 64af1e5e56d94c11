import MockBackendAPI
import MockBackendHTTP
import ServerSentEvents

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The player backend's behaviour: logins, session endings that reach every API and every
/// open user-info stream of the session at once, balance postings, and idle closes.
public final class PlayerService: Sendable {
    /// An open user-info stream connection.
    private struct Subscription {
        let sessionId: String
        let userId: Int
        let writer: ResponseBodyWriter
        /// Simulated time of the connection.
        let connectedAt: Duration
    }

    /// Which API a login came through, as the admin feed's `login` event names it.
    public enum LoginAPI: String, Sendable {
        case player
        case generation
    }

    public let accounts: AccountStore
    public let settings: PlayerSettings
    private let streams: EventStreamRegistry
    /// Where logins and session endings are published.
    private let events: AdminEventFeed?
    private let subscriptions = LockedValue<[UInt64: Subscription]>([:])
    /// Simulated time of each user's last user-info event.
    private let lastEventAt = LockedValue<[Int: Duration]>([:])
    private let sweepTimer = LockedValue<SimulationClock.Timer?>(nil)
    private let clock: SimulationClock

    public init(
        accounts: AccountStore, streams: EventStreamRegistry, settings: PlayerSettings, clock: SimulationClock,
        events: AdminEventFeed? = nil
    ) {
        self.accounts = accounts
        self.streams = streams
        self.settings = settings
        self.clock = clock
        self.events = events
    }

    /// The user-info stream of a user: no heartbeat, like its real counterpart.
    public func userInfoStream(_ userId: Int) -> EventStream {
        streams.stream(named: "userinfo/\(userId)", settings: EventStreamSettings(heartbeat: false))
    }

    /// Logs in with a username or email; schedules the TTL expiry when one is set.
    public func login(_ login: String, password: String, api: LoginAPI = .player) -> PlayerSession? {
        guard let session = accounts.login(login, password: password) else { return nil }
        events?.publish(
            .login,
            ["userId": .integer(session.userId), "sessionId": .string(session.sessionId), "api": .string(api.rawValue)])
        if let ttl = settings.sessionTTL {
            let sessionId = session.sessionId
            clock.schedule(after: ttl) { [weak self] in
                self?.expire(sessionId, reason: .expired)
            }
        }
        return session
    }

    /// Registers an open user-info stream of `session`. A session that ended in the
    /// meantime gets its stream ended at once, so no stream outlives its session.
    func subscribe(_ writer: ResponseBodyWriter, session: PlayerSession) {
        let connection = writer.connectionID
        let accepted = subscriptions.withLock { subscriptions -> Bool in
            guard case .valid = accounts.check(sessionId: session.sessionId) else { return false }
            subscriptions[connection] = Subscription(
                sessionId: session.sessionId, userId: session.userId, writer: writer, connectedAt: clock.now)
            return true
        }
        guard accepted else {
            writer.finish()
            return
        }
        writer.onClose { [weak self] _ in
            self?.subscriptions.withLock { subscriptions in
                if subscriptions[connection]?.writer === writer { subscriptions[connection] = nil }
            }
        }
    }

    /// Expires a session everywhere: REST answers 403, and each of its open streams gets
    /// `SESSION_EXPIRATION` and ends. Nil if the session is unknown or already over.
    @discardableResult
    public func expire(_ sessionId: String, reason: SessionExitReason) -> (session: PlayerSession, streams: Int)? {
        guard let session = accounts.end(sessionId, as: reason == .logout ? .loggedOut : .expired(reason)) else {
            return nil
        }
        let body = SessionExpirationBody(
            userId: String(session.userId), sessionId: sessionId, exitReason: reason.rawValue,
            exitReasonCode: reason.code)
        let count = endStreams(
            of: session, with: UserInfoEnvelope(type: UserInfoMessageType.sessionExpiration, body: body))
        events?.publish(
            .sessionExpired,
            [
                "sessionId": .string(sessionId), "userId": .integer(session.userId), "reason": .string(reason.rawValue),
                "code": .integer(reason.code), "streamsEnded": .integer(count),
            ])
        return (session, count)
    }

    /// Ends a session as logged out elsewhere: its streams get `SESSION_TERMINATED`.
    @discardableResult
    public func terminate(_ sessionId: String, reason: String = "Logged out elsewhere")
        -> (session: PlayerSession, streams: Int)?
    {
        guard let session = accounts.end(sessionId, as: .terminated) else { return nil }
        let body = SessionTerminatedBody(userId: String(session.userId), sessionId: sessionId, reason: reason)
        let count = endStreams(
            of: session, with: UserInfoEnvelope(type: UserInfoMessageType.sessionTerminated, body: body))
        events?.publish(
            .sessionTerminated,
            [
                "sessionId": .string(sessionId), "userId": .integer(session.userId), "reason": .string(reason),
                "streamsEnded": .integer(count),
            ])
        return (session, count)
    }

    /// Expires every active session of a user.
    public func expireAll(of userId: Int, reason: SessionExitReason) -> [PlayerSession] {
        accounts.activeSessions(of: userId).compactMap { expire($0.sessionId, reason: reason)?.session }
    }

    /// Sends the message to each open stream of the session (not logged: other sessions of
    /// the same user must not see it), then ends those streams cleanly.
    private func endStreams<Body: Codable & Sendable>(of session: PlayerSession, with message: UserInfoEnvelope<Body>)
        -> Int
    {
        let targets = subscriptions.withLock { subscriptions in
            subscriptions.values.filter { $0.sessionId == session.sessionId }
        }
        let data = (try? JSONCoding.encoder.encode(message)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let stream = userInfoStream(session.userId)
        for target in targets {
            _ = stream.send(ServerSentEvent(data: data), toConnection: target.writer.connectionID)
            target.writer.finish()
        }
        return targets.count
    }

    /// Moves a wallet by `amount` and emits the balance update (both variants by default,
    /// one posting id). Throws 404 for an unknown user, 409 when the wallet would go below 0.
    public func post(
        amount: Double, to userId: Int, wallet: String, productType: String, operationType: Int?
    ) throws -> BalanceUpdateBody {
        let posting = try accounts.update(userId) { user -> BalanceUpdateBody in
            let isBonus = wallet == "Bonus"
            let before = isBonus ? user.bonusBalance : user.realBalance
            let after = Money.rounded(before + amount)
            guard after >= 0 else {
                throw ProblemDetails(
                    status: 409, code: "INSUFFICIENT_FUNDS",
                    detail: "The \(wallet) wallet holds \(before) \(user.currency); it cannot move by \(amount).")
            }
            if isBonus { user.bonusBalance = after } else { user.realBalance = after }
            var changes = [
                "Real": BalanceUpdateBody.Change(
                    affectedAmount: isBonus ? 0 : Money.rounded(amount), afterAmount: user.realBalance,
                    currency: user.currency, productType: productType)
            ]
            if isBonus {
                changes["Bonus"] = BalanceUpdateBody.Change(
                    affectedAmount: Money.rounded(amount), afterAmount: user.bonusBalance, currency: user.currency,
                    productType: productType)
            }
            return BalanceUpdateBody(
                userId: String(user.userId), domainId: 4374, streamingDate: Timestamp.iso8601(Date()), source: "GmSlim",
                currency: user.currency, operationType: operationType ?? (amount < 0 ? 0 : 1),
                postingId: "2_" + SecureToken.uuid(), balanceChange: changes)
        }
        guard let posting else {
            throw ProblemDetails(status: 404, code: "USER_NOT_FOUND", detail: "No user \(userId).")
        }
        let types: [String] =
            switch settings.balanceUpdateVariants {
            case .both: [UserInfoMessageType.balanceUpdate, UserInfoMessageType.balanceUpdateV2]
            case .v1: [UserInfoMessageType.balanceUpdate]
            case .v2: [UserInfoMessageType.balanceUpdateV2]
            }
        let stream = userInfoStream(userId)
        for type in types {
            let data = try JSONCoding.encoder.encode(UserInfoEnvelope(type: type, body: posting))
            stream.publish(ServerSentEvent(data: String(decoding: data, as: UTF8.self)))
        }
        let now = clock.now
        lastEventAt.withLock { $0[userId] = now }
        return posting
    }

    /// Closes user-info streams that have gone `userInfoIdleTimeout` of simulated time
    /// without an event; checks every tenth of the timeout (at most every second).
    public func startIdleSweep() {
        let timeout = settings.userInfoIdleTimeout
        guard timeout > .zero else { return }
        let timer = clock.repeating(every: min(timeout / 10, .seconds(1))) { [weak self] in
            self?.closeIdleStreams(timeout: timeout)
        }
        sweepTimer.withLock { existing in
            if let existing { clock.cancel(existing) }
            existing = timer
        }
    }

    private func closeIdleStreams(timeout: Duration) {
        let now = clock.now
        let lastEvents = lastEventAt.current
        let idle = subscriptions.withLock { subscriptions in
            subscriptions.values.filter { subscription in
                let lastActivity = max(
                    subscription.connectedAt, lastEvents[subscription.userId] ?? subscription.connectedAt)
                return now - lastActivity >= timeout
            }
        }
        for subscription in idle { subscription.writer.finish() }
    }

    /// Back to `users`: every session forgotten and every user-info stream ended.
    public func reset(users: [UserAccount]) {
        let open = subscriptions.withLock { subscriptions in
            defer { subscriptions = [:] }
            return Array(subscriptions.values)
        }
        for subscription in open { subscription.writer.abort() }
        lastEventAt.withLock { $0 = [:] }
        accounts.replaceAll(with: users)
    }
}
