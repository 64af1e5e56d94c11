import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// Stale credentials and removed users on demand, and expiries with any reason.
@Suite("User and session admin")
struct UserAdminTests {
    @Test func aChangedPasswordMakesStoredCredentialsStale() async throws {
        try await withInMemoryApp { server in
            let session = try await login(server)
            let patched = try await server.admin.users.update(7_000_001, UserChanges(password: "rotated"))
            #expect(patched.password == "rotated")
            // The session still works; the old credentials no longer do, the new ones do.
            #expect(
                try await server.request(
                    "GET", "/v2/player/7000001/balance", headers: ["X-SessionId": session.sessionId]
                )
                .status == 200)
            try expectPlayerError(
                try await server.request(
                    "POST", "/v1/player/legislation/login", body: #"{"username":"demo","password":"demo1234"}"#),
                status: 403, "Invalid username or password")
            _ = try await login(server, "demo", "rotated")
        }
    }

    @Test(
        "PATCH refuses bad input",
        arguments: [
            (#"{"balance":5}"#, 400, "'balance'"), (#"{}"#, 400, "at least one"),
            (#"{"password":""}"#, 400, "'password'"),
            (#"{"username":"alice"}"#, 409, "USER_EXISTS"), (#"{"tokens":-1}"#, 400, "'tokens'"),
            (#"{"password":5}"#, 400, "'password'"), (#"nope"#, 400, "JSON"),
        ])
    func patchRefuses(body: String, status: Int, mentions: String) async throws {
        try await withInMemoryApp { server in
            let response = try await server.request("PATCH", "/__admin/users/7000001", body: body)
            #expect(response.status == status)
            #expect(response.text.contains(mentions), "\(response.text)")
            #expect(try await server.request("PATCH", "/__admin/users/999", body: #"{"password":"x"}"#).status == 404)
        }
    }

    @Test func aDeletedUsersSessionsEndKickedAndItsLoginsFail() async throws {
        try await withInMemoryApp { server in
            let session = try await login(server)
            let stream = try await openUserInfo(server, session: session.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            let deleted = try await server.admin.users.delete(7_000_001)
            #expect(deleted.sessionsEnded.contains(session.sessionId))
            let response = try await stream.readResponse()
            let frame = try #require(sseEvents(response.body).last)
            let message = try JSONDecoder().decode(
                UserInfoEnvelope<SessionExpirationBody>.self, from: Data(frame.data.utf8))
            #expect(message.type == "SESSION_EXPIRATION")
            #expect(message.body.exitReason == "Kicked")
            #expect(message.body.exitReasonCode == 3)
            #expect(frame.id != nil)
            try expectPlayerError(
                try await server.request(
                    "POST", "/v1/player/legislation/login", body: #"{"username":"demo","password":"demo1234"}"#),
                status: 403)
            try expectPlayerError(
                try await server.request(
                    "GET", "/v2/player/7000001/balance", headers: ["X-SessionId": session.sessionId]),
                status: 403)
            #expect(try await server.request("DELETE", "/__admin/users/7000001").status == 404)
            #expect(!(try await server.admin.users.list()).contains { $0.userId == 7_000_001 })
        }
    }

    @Test func anExpiryTakesAnyReasonAndCode() async throws {
        try await withInMemoryApp { server in
            let session = try await login(server)
            let stream = try await openUserInfo(server, session: session.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            try await server.admin.sessions.expire(session.sessionId, reason: "Maintenance", code: 42)
            let response = try await stream.readResponse()
            let frame = try #require(sseEvents(response.body).last)
            let message = try JSONDecoder().decode(
                UserInfoEnvelope<SessionExpirationBody>.self, from: Data(frame.data.utf8))
            #expect(message.body.exitReason == "Maintenance")
            #expect(message.body.exitReasonCode == 42)
            let sessions = try await server.admin.sessions.list()
            #expect(sessions.first { $0.sessionId == session.sessionId }?.code == 42)
            // A known reason named alone takes its code, and a known code its reason.
            let other = try await login(server)
            let byCode = try await server.admin.sessions.expire(other.sessionId, code: 2)
            #expect(byCode.reason == "Logout")
            #expect(byCode.state == "logged_out")
        }
    }

    @Test func endedSessionsAreKeptUpToTheirBound() {
        let accounts = AccountStore(
            users: [UserAccount(userId: 1, username: "u", password: "p")], endedSessionLimit: 3)
        var ended: [String] = []
        for _ in 0..<10 {
            let session = accounts.login("u", password: "p")!
            _ = accounts.end(session.sessionId, as: .expired(.expired))
            ended.append(session.sessionId)
        }
        let live = accounts.login("u", password: "p")!
        #expect(accounts.sessions.count == 4)
        #expect(accounts.session(live.sessionId)?.state == .active)
        #expect(ended.suffix(3).allSatisfy { accounts.session($0) != nil })
        #expect(ended.prefix(7).allSatisfy { accounts.session($0) == nil })
    }
}

/// A deleted user's stream goes with it.
@Suite("Deleted users")
struct DeletedUserStreamTests {
    @Test func aDeletedUsersStreamEndsKickedAndIsNoLongerListed() async throws {
        try await withInMemoryApp { server in
            let user = try await server.admin.users.create(NewUser(username: "gone", password: "pw"))
            let login = try await server.api.login(username: "gone", password: "pw")
            let stream = try await openUserInfo(server, session: login.sessionId, userId: user.userId)
            #expect(try await server.admin.streams.list().contains { $0.name == "userinfo/\(user.userId)" })
            _ = try await server.admin.users.delete(user.userId)
            let response = try await stream.readResponse()
            #expect(response.text.contains(#""exitReason":"Kicked""#))
            #expect(try await !server.admin.streams.list().contains { $0.name == "userinfo/\(user.userId)" })
        }
    }
}
