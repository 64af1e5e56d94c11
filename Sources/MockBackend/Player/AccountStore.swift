import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Users and their sessions: one store every API reads, so an expiry acts everywhere.
///
/// Invariant: every read and change happens under one lock; callers get copies. Active
/// sessions are kept until they end; ended ones are kept for their 403 answers up to
/// `endedSessionLimit`, the oldest ended first out (then the token is simply unknown, also
/// a 403).
package final class AccountStore: Sendable {
    /// What a session token is worth for a request.
    package enum SessionCheck: Sendable, Equatable {
        case valid(PlayerSession, UserAccount)
        /// No token was sent.
        case missing
        /// The token names no session.
        case unknown
        /// The session has ended (expired, terminated, logged out).
        case ended(PlayerSession)
        /// The session is another user's.
        case otherUser(PlayerSession)
    }

    private struct State {
        var users: [Int: UserAccount] = [:]
        var sessions: [String: PlayerSession] = [:]
        /// Ended sessions, in the order they ended.
        var ended: [String] = []
        var endedHead = 0
    }

    private let state = LockedValue(State())
    /// Ended sessions kept; default 10,000.
    package let endedSessionLimit: Int

    package init(users: [UserAccount], endedSessionLimit: Int = 10_000) {
        self.endedSessionLimit = max(1, endedSessionLimit)
        replaceAll(with: users)
    }

    /// Forgets every session and puts the users back as given.
    package func replaceAll(with users: [UserAccount]) {
        state.withLock { state in
            state = State(users: Dictionary(users.map { ($0.userId, $0) }, uniquingKeysWith: { $1 }))
        }
    }

    package var users: [UserAccount] { state.withLock { $0.users.values.sorted { $0.userId < $1.userId } } }

    package var sessions: [PlayerSession] {
        state.withLock { $0.sessions.values.sorted { $0.createdAt < $1.createdAt } }
    }

    package func user(_ userId: Int) -> UserAccount? { state.withLock { $0.users[userId] } }

    package func session(_ sessionId: String) -> PlayerSession? { state.withLock { $0.sessions[sessionId] } }

    /// A new session for matching credentials; `login` is a username or an email.
    package func login(_ login: String, password: String) -> PlayerSession? {
        state.withLock { state in
            guard
                let user = state.users.values.first(where: {
                    ($0.username == login || $0.email.lowercased() == login.lowercased()) && $0.password == password
                })
            else { return nil }
            let session = PlayerSession(
                sessionId: SecureToken.uuid(), id: SecureToken.uuid(), userId: user.userId, createdAt: .now,
                loginTime: Timestamp.iso8601(Date()), state: .active)
            state.sessions[session.sessionId] = session
            return session
        }
    }

    /// Checks a token, and with `userId` that the session is that user's.
    package func check(sessionId: String?, userId: Int? = nil) -> SessionCheck {
        guard let sessionId, !sessionId.isEmpty else { return .missing }
        return state.withLock { state in
            guard let session = state.sessions[sessionId] else { return .unknown }
            guard session.state == .active else { return .ended(session) }
            if let userId, userId != session.userId { return .otherUser(session) }
            guard let user = state.users[session.userId] else { return .unknown }
            return .valid(session, user)
        }
    }

    /// Ends an active session; nil if there is no such session or it had already ended.
    package func end(_ sessionId: String, as newState: PlayerSession.State) -> PlayerSession? {
        state.withLock { state in
            defer { trimEnded(&state) }
            return Self.end(sessionId, as: newState, in: &state)
        }
    }

    private static func end(_ sessionId: String, as newState: PlayerSession.State, in state: inout State)
        -> PlayerSession?
    {
        guard var session = state.sessions[sessionId], session.state == .active else { return nil }
        session.state = newState
        state.sessions[sessionId] = session
        state.ended.append(sessionId)
        return session
    }

    /// Forgets the oldest ended sessions past the limit.
    private func trimEnded(_ state: inout State) {
        while state.ended.count - state.endedHead > endedSessionLimit {
            state.sessions[state.ended[state.endedHead]] = nil
            state.endedHead += 1
        }
        if state.endedHead > 1024, state.endedHead * 2 > state.ended.count {
            state.ended.removeFirst(state.endedHead)
            state.endedHead = 0
        }
    }

    /// Removes a user; its active sessions end as `newState` (returned). Nil for no such user.
    package func remove(_ userId: Int, endingSessionsAs newState: PlayerSession.State) -> [PlayerSession]? {
        state.withLock { state in
            guard state.users.removeValue(forKey: userId) != nil else { return nil }
            let active = state.sessions.values.filter { $0.userId == userId && $0.state == .active }
            let ended = active.compactMap { Self.end($0.sessionId, as: newState, in: &state) }
            trimEnded(&state)
            return ended
        }
    }

    /// The active sessions of a user.
    package func activeSessions(of userId: Int) -> [PlayerSession] {
        state.withLock { state in state.sessions.values.filter { $0.userId == userId && $0.state == .active } }
    }

    /// Adds a user; nil if the id, username or email is taken.
    package func add(_ user: UserAccount) -> UserAccount? {
        state.withLock { state in
            let taken = state.users.values.contains {
                $0.userId == user.userId || $0.username == user.username
                    || $0.email.lowercased() == user.email.lowercased()
            }
            guard !taken else { return nil }
            state.users[user.userId] = user
            return user
        }
    }

    /// The next free user id after the highest.
    package var nextUserId: Int { state.withLock { ($0.users.keys.max() ?? 7_000_000) + 1 } }

    /// Changes a user under the lock; nil if there is no such user. `change` may throw to refuse.
    package func update<Result>(_ userId: Int, _ change: (inout UserAccount) throws -> Result) rethrows -> Result? {
        try state.withLock { state in
            guard var user = state.users[userId] else { return nil }
            let result = try change(&user)
            state.users[userId] = user
            return result
        }
    }
}
