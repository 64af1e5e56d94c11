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
