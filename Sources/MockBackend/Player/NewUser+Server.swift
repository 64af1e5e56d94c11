import MockBackendAPI

/// The server's side of `NewUser` (`POST /__admin/users`, a scenario file's users): the
/// fields checked, and the account made with the defaults.
extension NewUser {
    /// The first field whose value is not acceptable, and why; nil when all are.
    var problem: (field: String, reason: String)? {
        if username.isEmpty { return ("username", "must not be empty") }
        if password.isEmpty { return ("password", "must not be empty") }
        if let currency, currency.utf8.count != 3 || !currency.utf8.allSatisfy({ (65...90).contains($0) }) {
            return ("currency", "must be a three-letter code such as EUR, not \(currency)")
        }
        if (balance ?? 0) < 0 { return ("balance", "must not be negative") }
        if (bonus ?? 0) < 0 { return ("bonus", "must not be negative") }
        if (balance ?? 0) > Money.limit { return ("balance", "must be at most 1e12") }
        if (bonus ?? 0) > Money.limit { return ("bonus", "must be at most 1e12") }
        if (tokens ?? 0) < 0 { return ("tokens", "must not be negative") }
        return nil
    }

    /// The account, with `userId` when the user names none.
    func account(defaultUserId: Int) -> UserAccount {
        UserAccount(
            userId: userId ?? defaultUserId, username: username, email: email, password: password,
            firstName: firstName ?? "Demo", lastName: lastName ?? "Player", currency: currency ?? "EUR",
            realBalance: Money.rounded(balance ?? 0), bonusBalance: Money.rounded(bonus ?? 0), tokens: tokens ?? 10)
    }
}
