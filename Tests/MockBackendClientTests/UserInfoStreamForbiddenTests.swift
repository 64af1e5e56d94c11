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
        _ server: RunningServer, base: URL
    ) async throws -> (PlayerAuthenticator, stale: String, UserInfoStream, UserInfoDrain) {
        let authenticator = PlayerAuthenticator(baseURL: base, username: "demo", password: "demo1234")
        let stale = try await authenticator.sessionId()
        let stream = UserInfoStream(
            baseURL: base, userId: 7_000_001, sessionId: stale,
            configuration: UserInfoStreamConfiguration(policy: quickPolicy, onForbidden: .reloginOnce(authenticator)))
        let drain = await startDraining(stream, on: server)
        return (authenticator, stale, stream, drain)
    }

    /// Waits until the server sees the suspended stream's connection gone. Over h2 on Linux,
    /// URLSession (libcurl) sends the RST_STREAM of a cancelled task only with the
    /// connection's next request, so the server holds the stream until the resume: there is
    /// nothing to wait for (the journal's `http2Endings` shows the late RST_STREAM).
    private func expectSuspended(
        _ server: RunningServer, over transport: ClientTransport, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        #if os(Linux)
        if transport == .h2 { return }
        #endif
        #expect(await userInfoSubscribers(server, 0), sourceLocation: sourceLocation)
    }

    @Test(arguments: ClientTransport.available)
    func aForbiddenResumeRenewsTheSessionOnceAndGoesOn(over transport: ClientTransport) async throws {
        try await withServer(over: transport) { server, base in
            let (authenticator, stale, stream, drain) = try await startReloginStream(server, base: base)
            try await server.admin.users.postBalance(userId: 7_000_001, amount: -3)
            #expect(await eventually { drain.amounts == [-3] })

            stream.suspend()
            await expectSuspended(server, over: transport)
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
    @Test(arguments: ClientTransport.available)
    func staleCredentialsEndTheStreamAfterOneLogin(over transport: ClientTransport) async throws {
        try await withServer(over: transport) { server, base in
            let (authenticator, stale, stream, drain) = try await startReloginStream(server, base: base)
            stream.suspend()
            await expectSuspended(server, over: transport)
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

    @Test(arguments: ClientTransport.available)
    func withEndSessionAForbiddenResumeEndsTheStream(over transport: ClientTransport) async throws {
        try await withServer(over: transport) { server, base in
            let login = try await server.api.login()
            let stream = UserInfoStream(
                baseURL: base, userId: login.userId, sessionId: login.sessionId, policy: quickPolicy)
            let drain = await startDraining(stream, on: server)
            stream.suspend()
            await expectSuspended(server, over: transport)
            try await server.admin.sessions.expire(login.sessionId)
            stream.resume()
            #expect(await eventually { drain.ended.current })
            #expect(drain.failure.current as? EventSourceError == EventSourceError(reason: .unauthorized(status: 403)))
        }
    }
}
