import MockBackend
import MockBackendAPI

extension AdminClient {
    /// `/__admin/users`: the users of the scenario and those added since.
    public struct Users: Sendable {
        let http: KitHTTP

        /// `GET /__admin/users`.
        public func list() async throws -> [UserAccount] {
            try await http.call("GET", "/__admin/users")
        }

        /// `POST /__admin/users`: a new user; 409 `USER_EXISTS` when the id, username or
        /// email is taken.
        @discardableResult
        public func create(_ user: NewUser) async throws -> UserAccount {
            try await http.call("POST", "/__admin/users", json: user)
        }

        /// `POST /__admin/users/{id}/balance`: a posting of `amount` (negative debits) to
        /// the Real or Bonus wallet; the user's user-info streams get the balance update.
        @discardableResult
        public func postBalance(
            userId: Int, amount: Double, wallet: Wallet = .real, productType: String? = nil,
            operationType: Int? = nil
        ) async throws -> BalancePosting {
            try await http.call(
                "POST", "/__admin/users/\(userId)/balance",
                json: BalanceRequest(
                    amount: amount, wallet: wallet.rawValue, productType: productType, operationType: operationType))
        }

        /// `PATCH /__admin/users/{id}`: new credentials or details. Sessions stay: a changed
        /// password makes a client's stored credentials stale while its session still works.
        @discardableResult
        public func update(_ userId: Int, _ changes: UserChanges) async throws -> UserAccount {
            try await http.call("PATCH", "/__admin/users/\(userId)", json: changes)
        }

        /// `DELETE /__admin/users/{id}`: its sessions end as `Kicked` (3); its logins answer 403.
        @discardableResult
        public func delete(_ userId: Int) async throws -> UserRemoval {
            try await http.call("DELETE", "/__admin/users/\(userId)")
        }

        /// `POST /__admin/users/{id}/expire-sessions`: every live session of the user
        /// expires with the reason and code (default `Expired`, 1). Returns their ids.
        @discardableResult
        public func expireSessions(of userId: Int, reason: String? = nil, code: Int? = nil) async throws -> [String] {
            let answer: ExpiredSessions = try await http.call(
                "POST", "/__admin/users/\(userId)/expire-sessions", json: EndRequest(reason: reason, code: code))
            return answer.expired
        }
    }

    /// A wallet of a player's balance.
    public enum Wallet: String, Sendable {
        case real = "Real"
        case bonus = "Bonus"
    }

    struct BalanceRequest: Encodable {
        var amount: Double
        var wallet: String
        var productType: String?
        var operationType: Int?
    }

    struct ExpiredSessions: Decodable {
        var expired: [String]
    }
}

/// A user for `POST /__admin/users`: a username and a password; the rest has defaults
/// (the next free `userId` from 7000001, `<username>@example.com`, EUR, balance 0, 10 tokens).
public struct NewUser: Codable, Sendable, Equatable {
    public var username: String
    public var password: String
    public var userId: Int?
    public var email: String?
    public var firstName: String?
    public var lastName: String?
    /// A three-letter code such as EUR.
    public var currency: String?
    public var balance: Double?
    public var bonus: Double?
    public var tokens: Int?

    public init(
        username: String, password: String, userId: Int? = nil, email: String? = nil, currency: String? = nil,
        balance: Double? = nil, bonus: Double? = nil, tokens: Int? = nil
    ) {
        self.username = username
        self.password = password
        self.userId = userId
        self.email = email
        self.currency = currency
        self.balance = balance
        self.bonus = bonus
        self.tokens = tokens
    }
}

/// The answer to a balance posting: the posting as the streams carry it, and the balance after it.
public struct BalancePosting: Codable, Sendable, Equatable {
    public var posting: BalanceUpdateBody
    public var balance: PlayerBalanceResponse
}

/// The answer to `DELETE /__admin/users/{id}`.
public struct UserRemoval: Codable, Sendable, Equatable {
    public var userId: Int
    /// The sessions it had open, now ended as `Kicked`.
    public var sessionsEnded: [String]
}
