import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import TestSupport
import Testing

/// What the README says in prose, where `scripts/readme-check.sh` cannot check it, held to
/// what the server does: the answer of a fault rule's removal, the wording of a scenario
/// file's error, and the defaults of a created user.
@Suite("README claims")
struct ReadmeClaimsTests {
    private static func readme() throws -> String {
        try String(contentsOfFile: PackageRoot.path + "/README.md", encoding: .utf8)
    }

    /// The line of the fault examples that removes one rule says 204 without a body, as the
    /// server answers.
    @Test func removingAFaultRuleIsDocumentedAsItAnswers() throws {
        let line = try #require(try Self.readme().split(separator: "\n").first { $0.contains("-X DELETE $F/fault_") })
        let app = try InMemoryApp.manual()
        let added = try app.answer(
            "POST", "/__admin/faults", body: #"{"fault":{"kind":"reset"},"match":{"path":"/x"}}"#
        )
        .object()
        guard case .string(let id)? = added["id"] else { throw CocoaError(.coderValueNotFound) }
        let removed = app.answer("DELETE", "/__admin/faults/\(id)")
        #expect(removed.status == 204)
        #expect(removed.body.isEmpty)
        #expect(line.contains("# 204"), "\(line)")
        #expect(!line.contains("deleted"), "\(line)")
    }

    /// The README quotes the error a scenario file with a bad currency stops the start with.
    @Test func theScenarioErrorIsQuotedWordForWord() throws {
        var message = ""
        do {
            _ = try ScenarioFile.parse(
                Data(#"{"users": [{"username": "a", "password": "p", "currency": "euro"}]}"#.utf8))
        } catch {
            message = error.detail
        }
        #expect(!message.isEmpty)
        #expect(try Self.readme().contains("`--scenario s.json: \(message)`"), "README.md should quote: \(message)")
    }

    /// The defaults of a user made with only a username and a password are the README's.
    @Test func theDefaultsOfANewUserAreListed() throws {
        let app = try InMemoryApp.manual()
        let created = try app.answer("POST", "/__admin/users", body: #"{"username":"bob","password":"pw"}"#).object()
        let readme = try Self.readme()
        for field in ["firstName", "lastName", "currency"] {
            guard case .string(let value)? = created[field] else {
                Issue.record("no \(field) in \(created)")
                continue
            }
            #expect(readme.contains("`\(field)` `\(value)`"), "README.md should list the default \(field) \(value)")
        }
        guard case .string(let email)? = created["email"] else { return }
        #expect(email == "bob@example.com")
        #expect(readme.contains("`email` `<username>@example.com`"))
    }
}
