import MockBackendAPI
import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The server's side of `UserChanges` (`PATCH /__admin/users/{userId}`): the body checked
/// field by field, and the change made.
extension UserChanges {
    private static let fields: Set<String> = ["username", "password", "email", "firstName", "lastName", "tokens"]

    /// The body, refusing a field that cannot change (naming it) and empty values.
    static func decode(from request: HTTPRequest) throws -> UserChanges {
        let object = try RequestBody.decode([String: JSONValue].self, from: request)
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            throw ProblemDetails.badRequest(
                "Field '\(unknown)' cannot be changed; a user's \(fields.sorted().joined(separator: ", ")) can.",
                code: "INVALID_BODY")
        }
        guard !object.isEmpty else {
            throw ProblemDetails.badRequest("Name at least one field to change.", code: "INVALID_BODY")
        }
        let patch = try RequestBody.decode(UserChanges.self, from: request)
        for (name, value) in [
            ("username", patch.username), ("password", patch.password), ("email", patch.email),
            ("firstName", patch.firstName), ("lastName", patch.lastName),
        ] where value?.isEmpty == true {
            throw ProblemDetails.badRequest("Field '\(name)' must not be empty.", code: "INVALID_BODY")
        }
        if let tokens = patch.tokens, tokens < 0 {
            throw ProblemDetails.badRequest("Field 'tokens' must not be negative.", code: "INVALID_BODY")
        }
        return patch
    }

    /// Changes the user; 409 when the new username or email is another user's.
    func apply(to userId: Int, in accounts: AccountStore) throws -> UserAccount {
        let taken = accounts.users.contains { other in
            other.userId != userId
                && (other.username == username || other.email.lowercased() == email?.lowercased())
        }
        guard !taken else {
            throw ProblemDetails(status: 409, code: "USER_EXISTS", detail: "Another user has that username or email.")
        }
        let updated = accounts.update(userId) { user -> UserAccount in
            if let username { user.username = username }
            if let password { user.password = password }
            if let email { user.email = email }
            if let firstName { user.firstName = firstName }
            if let lastName { user.lastName = lastName }
            if let tokens { user.tokens = tokens }
            return user
        }
        guard let updated else { throw AdminUserRoutes.noUser(userId) }
        return updated
    }
}
