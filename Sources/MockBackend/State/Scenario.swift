/// Seed data. The built-in default is what `mockbackend` serves with no configuration.
public struct Scenario: Sendable, Equatable, Codable {
    public var users: [UserAccount]

    public init(users: [UserAccount]) {
        self.users = users
    }

    /// Two players with EUR wallets; `demo` has no bonus, `alice` has one.
    public static let builtIn = Scenario(users: [
        UserAccount(
            userId: 7_000_001, username: "demo", email: "demo@example.com", password: "demo1234", firstName: "Demo",
            lastName: "Player", currency: "EUR", realBalance: 745.96, bonusBalance: 0, tokens: 10),
        UserAccount(
            userId: 7_000_002, username: "alice", email: "alice@example.com", password: "alice1234", firstName: "Alice",
            lastName: "Liddell", currency: "EUR", realBalance: 120.5, bonusBalance: 25, tokens: 3),
    ])
}
