import Foundation
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// A 403 when the user-info stream reconnects: the session expired while the app was away.
@Suite("User-info stream: 403 on reconnect")
struct UserInfoStreamForbiddenTests {
    private let path = "/v2/player/7000001/information/updates"

    /// A stream of a fresh login whose 403s renew the session once, started and connected.
    private func startReloginStream(
        _ server: RunningServer
    ) async throws -> (PlayerAuthenticator, stale: String, UserInfoStream, UserInfoDrain) {
        let authenticator = PlayerAuthenticator(baseURL: server.baseURL, username: "demo", password: "demo1234")
        let stale = try await authenticator.sessionId()
        let stream = UserInfoStream(
            baseURL: server.baseURL, userId: 7_000_001, sessionId: stale,
            configuration: UserInfoStreamConfiguration(policy: quickPolicy, onForbidden: .reloginOnce(authenticator)))
        let drain = await startDraining(stream, on: server)
        return (authenticator, stale, stream, drain)
    }

    @Test func aForbiddenResumeRenewsTheSessionOnceAndGoesOn() async throws {
        try await withRunningServer { server in
            let (authenticator, stale, stream, drain) = try await startReloginStream(server)
            try await server.admin.users.postBalance(userId: 7_000_001, amount: -3)
            #expect(await eventually { drain.amounts == [-3] })

            stream.suspend()
            #expect(await userInfoSubscribers(server, 0))
            try await server.admin.sessions.expire(stale)
            stream.resume()
            #expect(await userInfoSubscribers(server, 1))
            try await server.admin.users.postBalance(userId: 7_000_001, amount: 4)
            #expect(await eventually { drain.amounts == [-3, 4] })

            #expect(stream.sessionId != stale)
            #expect(await authenticator.loginAttempts == 2)
            let forbidden = try await server.admin.requests.list().filter { $0.path == path && $0.status == 403 }
            #expect(forbidden.count == 1)
            #expect(!drain.ended.current)
            stream.stop()
            #expect(await eventually { drain.ended.current })
        }
    }

    /// Stored credentials went stale while the app was away: one failed login ends the
    /// stream with its error, never a loop of 403s.
    @Test func staleCredentialsEndTheStreamAfterOneLogin() async throws {
        try await withRunningServer { server in
            let (authenticator, stale, stream, drain) = try await startReloginStream(server)
            stream.suspend()
            #expect(await userInfoSubscribers(server, 0))
            try await server.admin.users.update(7_000_001, UserChanges(password: "changed-elsewhere"))
            try await server.admin.sessions.expire(stale)
            stream.resume()

            #expect(await eventually { drain.ended.current })
            #expect(drain.failure.current as? AuthenticationError == .invalidCredentials)
            #expect(await authenticator.loginAttempts == 2)
            try await Task.sleep(for: .milliseconds(200))
            let forbidden = try await server.admin.requests.list().filter { $0.path == path && $0.status == 403 }
            #expect(forbidden.count == 1)
        }
    }

    @Test func withEndSessionAForbiddenResumeEndsTheStream() async throws {
        try await withRunningServer { server in
            let login = try await server.api.login()
            let stream = UserInfoStream(
                baseURL: server.baseURL, userId: login.userId, sessionId: login.sessionId, policy: quickPolicy)
            let drain = await startDraining(stream, on: server)
            stream.suspend()
            #expect(await userInfoSubscribers(server, 0))
            try await server.admin.sessions.expire(login.sessionId)
            stream.resume()
            #expect(await eventually { drain.ended.current })
            #expect(drain.failure.current as? EventSourceError == EventSourceError(reason: .unauthorized(status: 403)))
        }
    }
}
