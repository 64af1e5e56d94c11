/// A wallet of a player's balance.
public enum Wallet: String, Codable, Sendable, CaseIterable {
    case real = "Real"
    case bonus = "Bonus"
}

/// `POST /__admin/users/{id}/balance`: a posting to one wallet, which the user's user-info
/// streams carry as a balance update.
public struct BalancePostingRequest: Codable, Sendable, Equatable {
    /// Non-zero, from -1e12 to 1e12; negative debits.
    public var amount: Double
    /// `Real` or `Bonus`; nil for `Real`.
    public var wallet: String?
    /// Nil for `Casino`.
    public var productType: String?
    /// 0 (debit), 1 (credit), 2 (reserve) or 3 (release); nil for the amount's sign.
    public var operationType: Int?

    public init(amount: Double, wallet: Wallet? = nil, productType: String? = nil, operationType: Int? = nil) {
        self.amount = amount
        self.wallet = wallet?.rawValue
        self.productType = productType
        self.operationType = operationType
    }
}

/// The answer to a balance posting: the posting as the streams carry it, and the balance after it.
public struct BalancePosting: Codable, Sendable, Equatable {
    public var posting: BalanceUpdateBody
    public var balance: PlayerBalanceResponse

    public init(posting: BalanceUpdateBody, balance: PlayerBalanceResponse) {
        self.posting = posting
        self.balance = balance
    }
}
