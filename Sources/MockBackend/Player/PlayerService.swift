import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The player backend's behaviour: logins, session endings that reach every API and every
/// open user-info stream of the session at once, balance postings, and user changes.
package final class PlayerService: Sendable {
    /// Which API a login came through, as the admin feed's `login` event names it.
    package enum LoginAPI: String, Sendable {
        case player
        case generation
    }

    package let accounts: AccountStore
    package let settings: PlayerSettings
    /// The user-info streams: what they send and to which session.
    let userInfo: UserInfoStreams
    /// Where logins and session endings are published.
    private let events: AdminEventFeed?
    private let clock: SimulationClock
    /// Told of every session that ends, after its user-info streams have ended.
    private let sessionEndObservers = LockedValue<[@Sendable (PlayerSession, StreamEndCause) -> Void]>([])

    package init(
        accounts: AccountStore, streams: EventStreamRegistry, settings: PlayerSettings, clock: SimulationClock,
        events: AdminEventFeed? = nil
    ) {
        self.accounts = accounts
        self.settings = settings
        self.clock = clock
        self.events = events
        userInfo = UserInfoStreams(registry: streams, settings: settings)
    }

    /// Calls `observer` with every session that ends from now on, and how (the cause its
    /// streams record), once its user-info streams have ended: how the other APIs' streams
    /// end with their session.
    package func onSessionEnd(_ observer: @escaping @Sendable (PlayerSession, StreamEndCause) -> Void) {
        sessionEndObservers.withLock { $0.append(observer) }
    }

    private func notifySessionEnd(_ session: PlayerSession, cause: StreamEndCause) {
        for observer in sessionEndObservers.current { observer(session, cause) }
    }

    /// Logs in with a username or email; schedules the TTL expiry when one is set.
    package func login(_ login: String, password: String, api: LoginAPI = .player) -> PlayerSession? {
        guard let session = accounts.login(login, password: password) else { return nil }
        userInfo.sessionBegan(session)
        events?.publish(.login(.init(userId: session.userId, sessionId: session.sessionId, api: api.rawValue)))
        if let ttl = settings.sessionTTL {
            let sessionId = session.sessionId
            clock.schedule(after: ttl) { [weak self] in
                self?.expire(sessionId, reason: .expired)
            }
        }
        return session
    }

    /// Expires a session everywhere: REST answers 403, and each of its open streams gets
    /// `SESSION_EXPIRATION` with `reason` and ends. Nil if the session is unknown or over.
    @discardableResult
    package func expire(_ sessionId: String, reason: SessionExitReason) -> (session: PlayerSession, streams: Int)? {
        guard let session = accounts.end(sessionId, as: reason == .logout ? .loggedOut : .expired(reason)) else {
            return nil
        }
        return (session, announceExpiry(of: session, reason: reason))
    }

    /// Sends `SESSION_EXPIRATION` to the streams of a session that has just ended, and
    /// tells the admin feed. Returns how many streams it ended.
    private func announceExpiry(of session: PlayerSession, reason: SessionExitReason) -> Int {
        let body = SessionExpirationBody(
            userId: String(session.userId), sessionId: session.sessionId, exitReason: reason.reason,
            exitReasonCode: reason.code)
        let count = userInfo.sessionEnded(
            session, with: UserInfoEnvelope(type: UserInfoMessageType.sessionExpiration, body: body),
            cause: reason == .logout ? .logout : .sessionExpired)
        notifySessionEnd(session, cause: reason == .logout ? .logout : .sessionExpired)
        events?.publish(
            .sessionExpired(
                .init(
                    sessionId: session.sessionId, userId: session.userId, reason: reason.reason, code: reason.code,
                    streamsEnded: count)))
        return count
    }

    /// Ends a session as logged out elsewhere: its streams get `SESSION_TERMINATED`.
    @discardableResult
    package func terminate(_ sessionId: String, reason: String = "Logged out elsewhere")
        -> (session: PlayerSession, streams: Int)?
    {
        guard let session = accounts.end(sessionId, as: .terminated) else { return nil }
        let body = SessionTerminatedBody(userId: String(session.userId), sessionId: sessionId, reason: reason)
        let count = userInfo.sessionEnded(
            session, with: UserInfoEnvelope(type: UserInfoMessageType.sessionTerminated, body: body),
            cause: .sessionTerminated)
        notifySessionEnd(session, cause: .sessionTerminated)
        events?.publish(
            .sessionTerminated(
                .init(sessionId: sessionId, userId: session.userId, reason: reason, streamsEnded: count)))
        return (session, count)
    }

    /// Expires every active session of a user.
    package func expireAll(of userId: Int, reason: SessionExitReason) -> [PlayerSession] {
        accounts.activeSessions(of: userId).compactMap { expire($0.sessionId, reason: reason)?.session }
    }

    /// Removes a user: its sessions end as `Kicked` (their streams get `SESSION_EXPIRATION`),
    /// and its credentials stop working. Nil if there is no such user.
    package func deleteUser(_ userId: Int) -> [PlayerSession]? {
        guard let ended = accounts.remove(userId, endingSessionsAs: .expired(.kicked)) else { return nil }
        for session in ended { _ = announceExpiry(of: session, reason: .kicked) }
        // Its stream goes with it: not listed, not kept (connections still ending keep it
        // until they have ended).
        userInfo.removeStream(of: userId)
        return ended
    }

    /// Moves a wallet by `amount` and emits the balance update (both variants by default,
    /// one posting id). Throws 404 for an unknown user, 409 when the wallet would go below 0.
    package func post(
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
        userInfo.publish(posting, userId: userId)
        return posting
    }

    /// Back to `users`: every session forgotten. (The reset that calls this also ends
    /// every stream.)
    package func reset(users: [UserAccount]) {
        accounts.replaceAll(with: users)
    }
}
