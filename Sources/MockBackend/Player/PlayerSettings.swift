/// Which balance-update messages the user-info stream sends for one posting.
public enum BalanceUpdateVariants: String, Sendable, CaseIterable, Codable {
    /// `BALANCE_UPDATE` and `BALANCE_UPDATE_V2`, as the real backend does.
    case both
    case v1
    case v2
}

/// How the player API behaves.
public struct PlayerSettings: Sendable {
    /// Default `.both`.
    public var balanceUpdateVariants = BalanceUpdateVariants.both
    /// A user-info connection with no event for this long is closed by the server, like the
    /// real one (about a minute). Default 60 s; zero never closes.
    public var userInfoIdleTimeout: Duration = .seconds(60)
    /// Sessions expire this long after login; nil keeps them until ended otherwise.
    public var sessionTTL: Duration?

    public init() {}
}
