/// A user for `POST /__admin/users`, or one in a scenario file: a username and a password;
/// the rest has defaults (the next free `userId` from 7000001, `<username>@example.com`,
/// Demo Player, EUR, balance 0, bonus 0, 10 tokens).
public struct NewUser: Codable, Sendable, Equatable {
    public var username: String
    public var password: String
    public var userId: Int?
    public var email: String?
    public var firstName: String?
    public var lastName: String?
    /// A three-letter code such as EUR.
    public var currency: String?
    /// The real-money wallet; 0 or more, at most 1e12.
    public var balance: Double?
    /// The bonus wallet; 0 or more, at most 1e12.
    public var bonus: Double?
    public var tokens: Int?

    public init(
        username: String, password: String, userId: Int? = nil, email: String? = nil, firstName: String? = nil,
        lastName: String? = nil, currency: String? = nil, balance: Double? = nil, bonus: Double? = nil,
        tokens: Int? = nil
    ) {
        self.username = username
        self.password = password
        self.userId = userId
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.currency = currency
        self.balance = balance
        self.bonus = bonus
        self.tokens = tokens
    }
}

/// The answer to `DELETE /__admin/users/{id}`.
public struct UserRemoval: Codable, Sendable, Equatable {
    public var userId: Int
    /// The sessions it had open, now ended as `Kicked`.
    public var sessionsEnded: [String]

    public init(userId: Int, sessionsEnded: [String]) {
        self.userId = userId
        self.sessionsEnded = sessionsEnded
    }
}
