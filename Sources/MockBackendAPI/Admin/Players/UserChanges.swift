/// `PATCH /__admin/users/{userId}`: the fields of a user that may change; nil leaves one as
/// it is, and at least one must be given. Sessions stay as they are: a changed password
/// makes the credentials a client stored stale (the "re-login loops on 403 forever" case),
/// while its current session still works until it ends.
public struct UserChanges: Codable, Sendable, Equatable {
    public var username: String?
    public var password: String?
    public var email: String?
    public var firstName: String?
    public var lastName: String?
    public var tokens: Int?

    public init(
        username: String? = nil, password: String? = nil, email: String? = nil, firstName: String? = nil,
        lastName: String? = nil, tokens: Int? = nil
    ) {
        self.username = username
        self.password = password
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.tokens = tokens
    }
}
