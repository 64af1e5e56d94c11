import Foundation
import MockBackend
import MockBackendAPI
import MockBackendClient
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private func loginCount(_ server: RunningServer) async throws -> Int {
    var logins = RequestMatcher(method: "POST")
    logins.urlPath = "/v1/player/legislation/login"
    return try await server.admin.requests.count(logins)
}

@Suite("Player client against the server")
struct PlayerClientTests {
    @Test func twentyConcurrentCallsAfterAnExpiryCauseOneRelogin() async throws {
        try await withRunningServer { server in
            let authenticator = PlayerAuthenticator(baseURL: server.baseURL, username: "demo", password: "demo1234")
            let stale = try await authenticator.sessionId()
            try await server.admin.requests.clear()
            try await server.admin.sessions.expire(stale)

            let url = server.baseURL.appendingPathComponent("v2/player/7000001/balance")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await authenticator.send(URLRequest(url: url)).1.statusCode }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 20))
            #expect(try await loginCount(server) == 1)
            #expect(await authenticator.loginAttempts == 2)
            #expect(try await authenticator.sessionId() != stale)
        }
    }

    /// "403 injection": a forbidden fault makes the client re-login once and retry.
    @Test func aForbiddenFaultCausesOneReloginAndTheRetrySucceeds() async throws {
        try await withRunningServer { server in
            let authenticator = PlayerAuthenticator(baseURL: server.baseURL, username: "demo", password: "demo1234")
            _ = try await authenticator.sessionId()
            try await server.admin.requests.clear()
            try await server.admin.faults.add(.forbidden, match: .init(path: "/v2/player/*/balance"), times: 1)
            let url = server.baseURL.appendingPathComponent("v2/player/7000001/balance")
            let (_, response) = try await authenticator.send(URLRequest(url: url))
            #expect(response.statusCode == 200)
            let journal = try await server.admin.requests.list()
            // Newest first: the retry, the login, the injected 403.
            #expect(
                journal.map(\.path) == [
                    "/v2/player/7000001/balance", "/v1/player/legislation/login", "/v2/player/7000001/balance",
                ])
            #expect(journal.map(\.status) == [200, 200, 403])
            #expect(journal[2].fault?.hasPrefix("forbidden") == true)
            #expect(try await loginCount(server) == 1)
        }
    }

    @Test func badStoredCredentialsEndInInvalidCredentialsAfterOneAttempt() async throws {
        try await withRunningServer { server in
            let authenticator = PlayerAuthenticator(baseURL: server.baseURL, username: "demo", password: "wrong")
            let url = server.baseURL.appendingPathComponent("v2/player/7000001/balance")
            await #expect(throws: AuthenticationError.invalidCredentials) {
                _ = try await authenticator.send(URLRequest(url: url))
            }
            let logins = try await loginCount(server)
            #expect(logins == 1)
        }
    }

    @Test func aForbiddenCallAfterReloginIsReturnedNotRetriedAgain() async throws {
        try await withRunningServer { server in
            // alice's session can never read demo's balance: one renew, one retry, then the 403 comes back.
            let authenticator = PlayerAuthenticator(baseURL: server.baseURL, username: "alice", password: "alice1234")
            let url = server.baseURL.appendingPathComponent("v2/player/7000001/balance")
            let (_, response) = try await authenticator.send(URLRequest(url: url))
            #expect(response.statusCode == 403)
            #expect(try await loginCount(server) == 2)
        }
    }

    @Test func expiryDuringAnOpenStreamEndsItWithTheReasonAndNoReconnect() async throws {
        try await withRunningServer { server in
            let authenticator = PlayerAuthenticator(baseURL: server.baseURL, username: "demo", password: "demo1234")
            let sessionId = try await authenticator.sessionId()
            let stream = UserInfoStream(
                baseURL: server.baseURL, userId: 7_000_001, sessionId: sessionId,
                policy: ReconnectionPolicy(initialDelay: .milliseconds(20), jitter: 0))
            stream.start()
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "userinfo/7000001")?.snapshot.subscribers.count == 1
                })
            try await server.admin.sessions.expire(sessionId, reason: "Expired", code: 1)
            var messages: [UserInfoMessage] = []
            for try await message in stream.messages { messages.append(message) }
            guard case .sessionExpiration(let body) = messages.last else {
                Issue.record("no SESSION_EXPIRATION: \(messages)")
                return
            }
            #expect(body.exitReason == "Expired")
            #expect(body.exitReasonCode == 1)
            #expect(stream.exitReason == body)
            #expect(stream.source?.state == .closed(.sessionOver("Expired")))
            try await Task.sleep(for: .milliseconds(300))
            #expect(server.app.streams.journal.snapshots(stream: "userinfo/7000001").count == 1)
        }
    }

    @Test func a403OnTheStreamStopsIt() async throws {
        try await withRunningServer { server in
            let stream = UserInfoStream(
                baseURL: server.baseURL, userId: 7_000_001, sessionId: "not-a-session",
                policy: ReconnectionPolicy(initialDelay: .milliseconds(20), jitter: 0))
            stream.start()
            await #expect(throws: EventSourceError(reason: .unauthorized(status: 403))) {
                for try await _ in stream.messages {}
            }
        }
    }

    @Test func aBalancePushYieldsOneUpdateMatchingREST() async throws {
        try await withRunningServer { server in
            let authenticator = PlayerAuthenticator(baseURL: server.baseURL, username: "demo", password: "demo1234")
            let sessionId = try await authenticator.sessionId()
            let stream = UserInfoStream(baseURL: server.baseURL, userId: 7_000_001, sessionId: sessionId)
            stream.start()
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "userinfo/7000001")?.snapshot.subscribers.count == 1
                })
            try await server.admin.users.postBalance(userId: 7_000_001, amount: -28)
            try await server.admin.users.postBalance(userId: 7_000_001, amount: 10)
            var updates: [BalanceUpdateBody] = []
            for try await message in stream.messages {
                if case .balanceUpdate(let body, _) = message { updates.append(body) }
                if updates.count == 2 { break }
            }
            // Both variants of each posting were delivered (the fourth event counts once its
            // last byte is written, which may be just after the client read the third); the
            // client yielded each posting once.
            #expect(
                await eventually {
                    server.app.streams.journal.snapshots(stream: "userinfo/7000001").first?.deliveredIds
                        == ["1", "2", "3", "4"]
                })
            #expect(updates.map { $0.balanceChange["Real"]?.affectedAmount } == [-28, 10])
            let (data, _) = try await authenticator.send(
                URLRequest(url: server.baseURL.appendingPathComponent("v2/player/7000001/balance")))
            let balance = try JSONDecoder().decode(PlayerBalanceResponse.self, from: data)
            #expect(updates.last?.balanceChange["Real"]?.afterAmount == balance.totalRealAmount["EUR"])
            stream.stop()
        }
    }

    /// The examples in openapi/examples/ decode through the client's own message type.
    @Test func goldenExamplesDecodeOnTheClientSide() throws {
        func example(_ name: String) throws -> String {
            try String(contentsOfFile: PackageRoot.path + "/openapi/examples/player/\(name).json", encoding: .utf8)
        }
        guard case .balanceUpdate(let v1, isV2: false) = UserInfoMessage.decode(try example("balance-update"))
        else {
            Issue.record("BALANCE_UPDATE")
            return
        }
        guard case .balanceUpdate(let v2, isV2: true) = UserInfoMessage.decode(try example("balance-update-v2"))
        else {
            Issue.record("BALANCE_UPDATE_V2")
            return
        }
        #expect(v1.postingId == v2.postingId)
        var postings = PostingDeduplicator()
        let first = postings.isNew(v1.postingId)
        let second = postings.isNew(v2.postingId)
        #expect(first)
        #expect(!second)
        guard case .sessionExpiration(let expiration) = UserInfoMessage.decode(try example("session-expiration"))
        else {
            Issue.record("SESSION_EXPIRATION")
            return
        }
        #expect(expiration.exitReason == "Expired")
        guard case .sessionTerminated = UserInfoMessage.decode(try example("session-terminated")) else {
            Issue.record("SESSION_TERMINATED")
            return
        }
        let unknown = UserInfoMessage.decode(#"{"type":"BONUS_AWARDED","body":{"x":1}}"#)
        #expect(unknown == .unknown(type: "BONUS_AWARDED", data: #"{"type":"BONUS_AWARDED","body":{"x":1}}"#))
    }
}
