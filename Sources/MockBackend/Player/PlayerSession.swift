/// One login: the token every API reads (`X-SessionId`, the `sessionId` cookie, or the
/// generation API's bearer), and how it ended.
package struct PlayerSession: Sendable, Equatable {
    /// Whether a session still opens doors, and if not, why.
    package enum State: Sendable, Equatable {
        case active
        /// Ended by expiry, with the reason its `SESSION_EXPIRATION` gave.
        case expired(SessionExitReason)
        /// Ended elsewhere (`SESSION_TERMINATED`).
        case terminated
        /// Logged out (`SESSION_EXPIRATION` with `Logout`).
        case loggedOut

        package var name: String {
            switch self {
            case .active: "active"
            case .expired: "expired"
            case .terminated: "terminated"
            case .loggedOut: "logged_out"
            }
        }
    }

    package var sessionId: String
    /// The second identifier of the login response.
    package var id: String
    package var userId: Int
    package var createdAt: ContinuousClock.Instant
    package var loginTime: String
    package var state: State
}
