import Foundation
import MockBackendTesting
import TestSupport
import Testing

@Suite("AdminClient: sessions and users")
struct AdminSessionAndUserTests {
    @Test func expiresASessionWithAnyReasonAndCode() async throws {
        try await withInMemoryApp { server in
            let login = try await server.api.login()
            let ended = try await server.admin.sessions.expire(login.sessionId, reason: "Maintenance", code: 42)
            #expect(ended.sessionId == login.sessionId)
            #expect(ended.userId == 7_000_001)
            #expect(ended.state == "expired")
            #expect(ended.reason == "Maintenance" && ended.code == 42)
            let listed = try await server.admin.sessions.list().first { $0.sessionId == login.sessionId }
            #expect(listed?.state == "expired")
            #expect(listed?.code == 42)
            let again = await #expect(throws: UnexpectedResponseError.self) {
                try await server.admin.sessions.expire(login.sessionId)
            }
            #expect(again?.status == 409)
            #expect(again?.code == "SESSION_ALREADY_ENDED")
        }
    }

    @Test func terminatesASession() async throws {
        try await withInMemoryApp { server in
            let login = try await server.api.login(username: "alice", password: "alice1234")
            let ended = try await server.admin.sessions.terminate(login.sessionId)
            #expect(ended.state == "terminated")
            #expect(ended.reason == "Logged out elsewhere")
            let missing = await #expect(throws: UnexpectedResponseError.self) {
                try await server.admin.sessions.terminate("no-such-session")
            }
            #expect(missing?.code == "SESSION_NOT_FOUND")
        }
    }

    @Test func createsChangesAndDeletesAUser() async throws {
        try await withInMemoryApp { server in
            let users = server.admin.users
            let bob = try await users.create(NewUser(username: "bob", password: "pw", currency: "GBP", balance: 50))
            #expect(bob.userId == 7_000_003)
            #expect(bob.currency == "GBP" && bob.realBalance == 50)
            #expect(try await users.list().map(\.username) == ["demo", "alice", "bob"])

            let login = try await server.api.login(username: "bob", password: "pw")
            let renamed = try await users.update(bob.userId, UserChanges(password: "rotated", tokens: 3))
            #expect(renamed.password == "rotated" && renamed.tokens == 3)
            await #expect(throws: UnexpectedResponseError.self) {
                try await server.api.login(username: "bob", password: "pw")
            }

            let removal = try await users.delete(bob.userId)
            #expect(removal.userId == bob.userId)
            #expect(removal.sessionsEnded == [login.sessionId])
            #expect(try await users.list().count == 2)
        }
    }

    @Test func postsToABalanceAndExpiresAllOfAUsersSessions() async throws {
        try await withInMemoryApp { server in
            let posting = try await server.admin.users.postBalance(
                userId: 7_000_001, amount: -28, productType: "Casino")
            #expect(posting.balance.totalAmount["EUR"] == 717.96)
            #expect(posting.posting.userId == "7000001")
            let bonus = try await server.admin.users.postBalance(userId: 7_000_002, amount: 5, wallet: .bonus)
            #expect(bonus.balance.totalBonusAmount["EUR"] == 30)

            let first = try await server.api.login()
            let second = try await server.api.login()
            let expired = try await server.admin.users.expireSessions(of: 7_000_001, reason: "Kicked")
            #expect(Set(expired) == [first.sessionId, second.sessionId])
        }
    }
}
