/// `GET /v2/player/{userId}/balance`: totals keyed by currency code, and one item per wallet.
public struct PlayerBalanceResponse: Codable, Sendable, Equatable {
    public struct Item: Codable, Sendable, Equatable {
        /// `Real` or `Bonus`.
        public var type: String
        public var amount: Double
        public var currency: String
        public var walletAccountType: String

        public init(type: String, amount: Double, currency: String, walletAccountType: String = "Ordinary") {
            self.type = type
            self.amount = amount
            self.currency = currency
            self.walletAccountType = walletAccountType
        }
    }

    public var totalAmount: [String: Double]
    public var totalCashAmount: [String: Double]
    public var totalWithdrawableAmount: [String: Double]
    public var totalRealAmount: [String: Double]
    public var totalBonusAmount: [String: Double]
    public var items: [Item]

    /// The balance of one currency: cash is real plus bonus, withdrawable is real.
    public init(currency: String, real: Double, bonus: Double) {
        let total = Money.rounded(real + bonus)
        totalAmount = [currency: total]
        totalCashAmount = [currency: total]
        totalWithdrawableAmount = [currency: real]
        totalRealAmount = [currency: real]
        totalBonusAmount = [currency: bonus]
        items = [
            Item(type: "Real", amount: real, currency: currency),
            Item(type: "Bonus", amount: bonus, currency: currency),
        ]
    }
}

/// Amounts are kept to the cent.
public enum Money {
    /// The largest amount the mock moves or holds in one go (a trillion), far above any
    /// real wallet and far below where cents stop being exact in a Double.
    public static let limit: Double = 1_000_000_000_000

    public static func rounded(_ amount: Double) -> Double {
        (amount * 100).rounded() / 100
    }
}
