import MockBackendAPI

/// A player: credentials, profile, wallets and generation tokens.
public struct UserAccount: Sendable, Equatable, Codable {
    public var userId: Int
    public var username: String
    public var email: String
    public var password: String
    public var firstName: String
    public var lastName: String
    public var currency: String
    /// The real-money wallet, to the cent.
    public var realBalance: Double
    /// The bonus wallet, to the cent.
    public var bonusBalance: Double
    /// Tokens the generation API spends, one per generation.
    public var tokens: Int

    public init(
        userId: Int, username: String, email: String? = nil, password: String, firstName: String = "Demo",
        lastName: String = "Player", currency: String = "EUR", realBalance: Double = 0, bonusBalance: Double = 0,
        tokens: Int = 10
    ) {
        self.userId = userId
        self.username = username
        self.email = email ?? "\(username)@example.com"
        self.password = password
        self.firstName = firstName
        self.lastName = lastName
        self.currency = currency
        self.realBalance = realBalance
        self.bonusBalance = bonusBalance
        self.tokens = tokens
    }
}

/// One login: the token every API reads (`X-SessionId`, the `sessionId` cookie, or the
/// generation API's bearer), and how it ended.
public struct PlayerSession: Sendable, Equatable {
    /// Whether a session still opens doors, and if not, why.
    public enum State: Sendable, Equatable {
        case active
        /// Ended by expiry, with the reason its `SESSION_EXPIRATION` gave.
        case expired(SessionExitReason)
        /// Ended elsewhere (`SESSION_TERMINATED`).
        case terminated
        /// Logged out (`SESSION_EXPIRATION` with `Logout`).
        case loggedOut

        /// The `error` text of the 403 body for a session in this state.
        var refusal: String {
            switch self {
            case .active: ""
            case .expired: "Session expired"
            case .terminated: "Session terminated"
            case .loggedOut: "Session logged out"
            }
        }

        public var name: String {
            switch self {
            case .active: "active"
            case .expired: "expired"
            case .terminated: "terminated"
            case .loggedOut: "logged_out"
            }
        }
    }

    public var sessionId: String
    /// The second identifier of the login response.
    public var id: String
    public var userId: Int
    public var createdAt: ContinuousClock.Instant
    public var loginTime: String
    public var state: State
}
