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
                json: BalancePostingRequest(
                    amount: amount, wallet: wallet, productType: productType, operationType: operationType))
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
                "POST", "/__admin/users/\(userId)/expire-sessions", json: SessionEndRequest(reason: reason, code: code))
            return answer.expired
        }
    }
}
