import Foundation
import MockBackend
import MockBackendAPI
import MockBackendHTTP
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// Logs `username` in and returns the response.
func login(_ server: some AppUnderTest, _ username: String = "demo", _ password: String = "demo1234") async throws
    -> PlayerLoginResponse
{
    let response = try await server.request(
        "POST", "/v1/player/legislation/login", body: #"{"username":"\#(username)","password":"\#(password)"}"#)
    #expect(response.status == 200)
    return try JSONDecoder().decode(PlayerLoginResponse.self, from: Data(response.body))
}

/// Asserts the player API's own 403 body (not problem+json).
func expectPlayerError(_ response: RawResponse, status: Int, _ message: String? = nil) throws {
    #expect(response.status == status)
    #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
    let body = try JSONDecoder().decode(PlayerErrorBody.self, from: Data(response.body))
    #expect(body.success == false)
    #expect(body.errorCode == status)
    #expect(body.errorSourceName == "mockbackend")
    #expect(UUID(uuidString: body.nwaTraceId) != nil)
    if let message { #expect(body.error == message) }
}

@Suite("Player API")
struct PlayerRoutesTests {
    @Test(arguments: Transport.available)
    func loginAnswersTheBackendShapeWithANumericUserIdAndACookie(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let response = try await server.request(
                "POST", "/v1/player/legislation/login", body: #"{"username":"demo","password":"demo1234"}"#)
            #expect(response.status == 200)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(object["userId"] as? Int == 7_000_001)
            #expect(object["sessionBlockers"] as? [Any] != nil)
            #expect(object["hasToAcceptTC"] as? Bool == false)
            #expect(object["hasToSetPass"] as? Bool == false)
            let sessionId = try #require(object["sessionId"] as? String)
            #expect(UUID(uuidString: sessionId) != nil)
            #expect(UUID(uuidString: object["id"] as? String ?? "") != nil)
            #expect(response.headers["Set-Cookie"]?.hasPrefix("sessionId=\(sessionId);") == true)
        }
    }

    @Test func tokensAreUniquePerLogin() async throws {
        try await withInMemoryApp { server in
            var ids: [String] = []
            for _ in 0..<20 { ids.append(try await login(server).sessionId) }
            #expect(Set(ids).count == 20)
        }
    }

    @Test(
        "login refuses bad input",
        arguments: [
            (#"{"username":"demo","password":"wrong"}"#, "application/json", 403, "Invalid username or password"),
            (#"{"username":"nobody","password":"demo1234"}"#, "application/json", 403, "Invalid username or password"),
            (#"{"username":"demo""#, "application/json", 400, "The body is not valid JSON."),
            (#"{"username":"demo"}"#, "application/json", 400, "Field 'password' is required."),
            (#"{"password":"demo1234"}"#, "application/json", 400, "Field 'username' is required."),
            (#"{"username":7,"password":"demo1234"}"#, "application/json", 400, "Field 'username' must be a string."),
        ])
    func loginRefuses(body: String, contentType: String, status: Int, message: String) async throws {
        try await withInMemoryApp { server in
            let response = try await server.request(
                "POST", "/v1/player/legislation/login", headers: ["Content-Type": contentType], body: body)
            try expectPlayerError(response, status: status, message)
        }
    }

    @Test(arguments: Transport.available)
    func authenticatedRoutesAnswerWithTheSession(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let session = try await login(server)
            let headers = ["X-SessionId": session.sessionId, "X-Session-Type": "others"]
            let details = try await server.request("GET", "/v1/player/7000001/details", headers: headers)
            #expect(details.status == 200)
            #expect(details.text.contains(#""username":"demo""#))
            let balance = try await server.request("GET", "/v2/player/7000001/balance", headers: headers)
            let decoded = try JSONDecoder().decode(PlayerBalanceResponse.self, from: Data(balance.body))
            #expect(decoded == PlayerBalanceResponse(currency: "EUR", real: 745.96, bonus: 0))
            #expect(decoded.totalCashAmount == ["EUR": 745.96])
            let bets = try await server.request("GET", "/v1/player/7000001/bets/open?limit=2", headers: headers)
            #expect(bets.status == 200)
            #expect((try JSONSerialization.jsonObject(with: Data(bets.body)) as? [Any])?.count == 2)
            try expectPlayerError(
                try await server.request("GET", "/v1/player/7000001/bets/open?limit=0", headers: headers), status: 400)
            // Header names are case-insensitive.
            #expect(
                try await server.request(
                    "GET", "/v2/player/7000001/balance", headers: ["x-sessionid": session.sessionId]
                )
                .status == 200)
        }
    }

    @Test func aliceHasBonusInCashButNotInWithdrawable() async throws {
        try await withInMemoryApp { server in
            let session = try await login(server, "alice", "alice1234")
            let balance = try await server.request(
                "GET", "/v2/player/7000002/balance", headers: ["X-SessionId": session.sessionId])
            let decoded = try JSONDecoder().decode(PlayerBalanceResponse.self, from: Data(balance.body))
            #expect(decoded.totalCashAmount == ["EUR": 145.5])
            #expect(decoded.totalWithdrawableAmount == ["EUR": 120.5])
            #expect(decoded.totalBonusAmount == ["EUR": 25])
        }
    }

    @Test(arguments: Transport.available)
    func casinoRouteReadsTheSessionCookie(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let session = try await login(server)
            let response = try await server.request(
                "GET", "/v1/casino/games/recent", headers: ["Cookie": "theme=dark; sessionId=\(session.sessionId)"])
            #expect(response.status == 200)
            #expect(response.text.contains("Starburst"))
            try expectPlayerError(
                try await server.request("GET", "/v1/casino/games/recent"), status: 403, "Session expired")
        }
    }

    @Test(arguments: Transport.available)
    func everyRefusedSessionGets403WithTheBackendBody(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let demo = try await login(server)
            let alice = try await login(server, "alice", "alice1234")
            try expectPlayerError(
                try await server.request("GET", "/v2/player/7000001/balance"), status: 403, "Session expired")
            try expectPlayerError(
                try await server.request("GET", "/v2/player/7000001/balance", headers: ["X-SessionId": "nope"]),
                status: 403,
                "Session expired")
            try expectPlayerError(
                try await server.request(
                    "GET", "/v2/player/7000001/balance", headers: ["X-SessionId": alice.sessionId]),
                status: 403, "Session expired")
            try expectPlayerError(
                try await server.request("GET", "/v1/player/abc/details", headers: ["X-SessionId": demo.sessionId]),
                status: 400)
            try await server.admin.sessions.expire(demo.sessionId)
            for path in [
                "/v2/player/7000001/balance", "/v1/player/7000001/details", "/v2/player/7000001/information/updates",
            ] {
                try expectPlayerError(
                    try await server.request("GET", path, headers: ["X-SessionId": demo.sessionId]), status: 403,
                    "Session expired")
            }
        }
    }

    @Test(arguments: Transport.available)
    func logoutEndsTheSession(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let session = try await login(server)
            let logout = try await server.request(
                "POST", "/v1/player/logout", headers: ["X-SessionId": session.sessionId])
            #expect(logout.status == 200)
            try expectPlayerError(
                try await server.request(
                    "GET", "/v2/player/7000001/balance", headers: ["X-SessionId": session.sessionId]),
                status: 403, "Session expired")
            try expectPlayerError(try await server.request("POST", "/v1/player/logout"), status: 403)
        }
    }

    /// One switch acts everywhere: REST answers 403, the open stream gets
    /// SESSION_EXPIRATION and ends, a reconnect gets 403, a fresh login works, and another
    /// session of the same user keeps its stream.
    @Test(arguments: Transport.available)
    func oneExpiryActsEverywhereAtOnce(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let session = try await login(server)
            let other = try await login(server)
            let stream = try await openUserInfo(server, session: session.sessionId)
            let otherStream = try await openUserInfo(server, session: other.sessionId)
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "userinfo/7000001")?.snapshot.subscribers.count == 2
                })

            let expired = try await server.admin.sessions.expire(session.sessionId, reason: "Expired", code: 1)
            #expect(expired.streamsEnded == 1)
            let response = try await stream.readResponse()
            var parser = SSEParser()
            let events = parser.feed(response.body).compactMap { if case .event(let event) = $0 { event } else { nil } }
            let message = try JSONDecoder().decode(
                UserInfoEnvelope<SessionExpirationBody>.self, from: Data(events.last!.data.utf8))
            #expect(message.type == "SESSION_EXPIRATION")
            #expect(
                message.body
                    == SessionExpirationBody(
                        userId: "7000001", sessionId: session.sessionId, exitReason: "Expired", exitReasonCode: 1))
            #expect(events.last!.data.contains(#""loginTime":null"#))
            try expectPlayerError(
                try await server.request(
                    "GET", "/v2/player/7000001/information/updates", headers: ["X-SessionId": session.sessionId]),
                status: 403)
            #expect(try await login(server).sessionId != session.sessionId)
            // The other session's stream did not see it and is still open.
            #expect(await otherStream.waitForClose(timeout: .milliseconds(200)) == .stillOpen)
            #expect(!String(decoding: otherStream.streamedBody, as: UTF8.self).contains("SESSION_EXPIRATION"))
            #expect(
                try await server.request("POST", "/__admin/sessions/\(session.sessionId)/expire", body: "{}").status
                    == 409)
            #expect(try await server.request("POST", "/__admin/sessions/nope/expire", body: "{}").status == 404)
        }
    }

    @Test(arguments: Transport.available)
    func terminateSendsSessionTerminated(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let session = try await login(server)
            let stream = try await openUserInfo(server, session: session.sessionId)
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "userinfo/7000001")?.snapshot.subscribers.count == 1
                })
            try await server.admin.sessions.terminate(session.sessionId)
            let response = try await stream.readResponse()
            #expect(response.text.contains(#""type":"SESSION_TERMINATED""#))
            #expect(response.text.contains(#""reason":"Logged out elsewhere""#))
            try expectPlayerError(
                try await server.request(
                    "GET", "/v2/player/7000001/balance", headers: ["X-SessionId": session.sessionId]),
                status: 403, "Session expired")
        }
    }

    @Test(arguments: Transport.available)
    func expireSessionsOfAUserWithKicked(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let first = try await login(server)
            let second = try await login(server)
            let expired = try await server.admin.users.expireSessions(of: 7_000_001, reason: "Kicked")
            #expect(expired.contains(first.sessionId))
            #expect(expired.contains(second.sessionId))
            #expect(try await server.admin.sessions.list().contains { $0.reason == "Kicked" })
        }
    }

    /// On the manual clock, so that a busy machine cannot let the TTL pass before the
    /// stream opens.
    @Test(arguments: Transport.available)
    func sessionTTLExpiresSessionsAndTheirStreams(over transport: Transport) async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        // Shorter than the idle close (60 s), so it is the TTL that ends the stream.
        configuration.player.sessionTTL = .seconds(30)
        try await withApp(over: transport, configuration) { server in
            let session = try await login(server)
            let stream = try await openUserInfo(server, session: session.sessionId)
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "userinfo/7000001")?.snapshot.subscribers.count == 1
                })
            try await server.admin.clock.advance(by: .seconds(29))
            #expect(await stream.waitForClose(timeout: .milliseconds(200)) == .stillOpen)
            try await server.admin.clock.advance(by: .seconds(1))
            let response = try await stream.readResponse(timeout: .seconds(10))
            #expect(response.status == 200)
            #expect(response.text.contains(#""exitReason":"Expired""#))
            try expectPlayerError(
                try await server.request(
                    "GET", "/v2/player/7000001/balance", headers: ["X-SessionId": session.sessionId]),
                status: 403, "Session expired")
        }
    }

    @Test func balancePostingSendsBothVariantsWithOnePostingIdAndMatchesREST() async throws {
        try await withInMemoryApp { server in
            let session = try await login(server)
            let stream = try await openUserInfo(server, session: session.sessionId)
            #expect(
                await eventually {
                    server.app.streams.existingStream(named: "userinfo/7000001")?.snapshot.subscribers.count == 1
                })
            try await server.admin.users.postBalance(userId: 7_000_001, amount: -28, productType: "Casino")
            try await stream.receive(untilContains: "BALANCE_UPDATE_V2")
            var parser = SSEParser()
            let messages = parser.feed(stream.streamedBody).compactMap {
                output -> UserInfoEnvelope<BalanceUpdateBody>? in
                guard case .event(let event) = output else { return nil }
                return try? JSONDecoder().decode(UserInfoEnvelope<BalanceUpdateBody>.self, from: Data(event.data.utf8))
            }
            #expect(messages.map(\.type) == ["BALANCE_UPDATE", "BALANCE_UPDATE_V2"])
            #expect(messages[0].body.postingId == messages[1].body.postingId)
            #expect(messages[0].body.postingId.hasPrefix("2_"))
            #expect(messages[0].body.operationType == 0)
            #expect(messages[0].body.balanceChange.keys.sorted() == ["Real"])
            let real = try #require(messages[0].body.balanceChange["Real"])
            #expect(real.affectedAmount == -28)
            let balance = try JSONDecoder().decode(
                PlayerBalanceResponse.self,
                from: Data(
                    try await server.request(
                        "GET", "/v2/player/7000001/balance", headers: ["X-SessionId": session.sessionId]
                    )
                    .body))
            #expect(balance.totalRealAmount["EUR"] == real.afterAmount)
            #expect(real.afterAmount == 717.96)

            let bonus = try await server.admin.users.postBalance(userId: 7_000_001, amount: 5, wallet: .bonus)
            #expect(bonus.posting.balanceChange["Bonus"] != nil)
            #expect(bonus.posting.operationType == 1)
        }
    }

    @Test func variantsFlagSendsOneKind() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.player.balanceUpdateVariants = .v2
        try await withInMemoryApp(configuration) { server in
            try await server.admin.users.postBalance(userId: 7_000_001, amount: 1)
            let stream = try #require(server.app.streams.existingStream(named: "userinfo/7000001"))
            #expect(stream.snapshot.eventCount == 1)
        }
    }

    @Test(
        "admin refuses bad player requests",
        arguments: [
            ("/__admin/users/7000001/balance", #"{}"#, 400, "'amount'"),
            ("/__admin/users/7000001/balance", #"{"amount":"ten"}"#, 400, "'amount'"),
            ("/__admin/users/7000001/balance", #"{"amount":1,"wallet":"Gold"}"#, 400, "'wallet'"),
            ("/__admin/users/7000001/balance", #"{"amount":1,"operationType":9}"#, 400, "'operationType'"),
            ("/__admin/users/7000001/balance", #"{"amount":-100000}"#, 409, "INSUFFICIENT_FUNDS"),
            ("/__admin/users/999/balance", #"{"amount":1}"#, 404, "USER_NOT_FOUND"),
            ("/__admin/users/abc/balance", #"{"amount":1}"#, 400, "INVALID_USER_ID"),
            ("/__admin/sessions/x/expire", #"{"reason":"Bored"}"#, 400, "'code'"),
            ("/__admin/sessions/x/expire", #"{"code":7}"#, 400, "'reason'"),
            ("/__admin/sessions/x/expire", #"{"reason":""}"#, 400, "'reason'"),
            ("/__admin/sessions/x/expire", #"{"reason":"Two\nlines","code":9}"#, 400, "'reason'"),
            ("/__admin/sessions/x/expire", #"{"reason":"Maintenance","code":"x"}"#, 400, "'code'"),
            ("/__admin/users", #"{"username":"demo","password":"x"}"#, 409, "USER_EXISTS"),
            ("/__admin/users", #"{"username":"bob"}"#, 400, "'password'"),
            ("/__admin/users", #"{"username":"bob","password":"x","currency":"euro"}"#, 400, "'currency'"),
        ])
    func adminRefuses(path: String, body: String, status: Int, mentions: String) async throws {
        try await withInMemoryApp { server in
            let response = try await server.request("POST", path, body: body)
            #expect(response.status == status)
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.text.contains(mentions))
        }
    }

    @Test func createdUsersCanLogIn() async throws {
        try await withInMemoryApp { server in
            let created = try await server.admin.users.create(
                NewUser(username: "bob", password: "pw", currency: "GBP", balance: 10))
            #expect(created.userId == 7_000_003)
            let session = try await login(server, "bob", "pw")
            let balance = try await server.request(
                "GET", "/v2/player/7000003/balance", headers: ["X-SessionId": session.sessionId])
            #expect(balance.text.contains(#""totalAmount":{"GBP":10}"#))
        }
    }
}
