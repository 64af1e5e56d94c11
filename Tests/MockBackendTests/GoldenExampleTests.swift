import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import TestSupport
import Testing

/// The player API examples in openapi/examples/ decode into the server's wire
/// types, and what the server sends has the same fields of the same JSON types.
@Suite("Golden examples, server side")
struct GoldenExampleTests {
    static func example(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: PackageRoot.path + "/openapi/examples/player/\(name).json"))
    }

    static func shape(_ data: Data) throws -> Set<String> {
        try GoldenExample.shape(data)
    }

    @Test func examplesDecode() throws {
        _ = try JSONDecoder().decode(PlayerLoginRequest.self, from: try Self.example("login-request"))
        let login = try JSONDecoder().decode(PlayerLoginResponse.self, from: try Self.example("login-response"))
        #expect(login.userId == 7_000_001)
        let error = try JSONDecoder().decode(PlayerErrorBody.self, from: try Self.example("error-session-expired"))
        #expect(error.errorCode == 403)
        let balance = try JSONDecoder().decode(PlayerBalanceResponse.self, from: try Self.example("balance"))
        #expect(balance == PlayerBalanceResponse(currency: "EUR", real: 745.96, bonus: 0))
        let update = try JSONDecoder().decode(
            UserInfoEnvelope<BalanceUpdateBody>.self, from: try Self.example("balance-update"))
        #expect(update.body.balanceChange["Real"]?.afterAmount == 745.96)
        let expiration = try JSONDecoder().decode(
            UserInfoEnvelope<SessionExpirationBody>.self, from: try Self.example("session-expiration"))
        #expect(expiration.body.exitReasonCode == 1)
        _ = try JSONDecoder().decode(
            UserInfoEnvelope<SessionTerminatedBody>.self, from: try Self.example("session-terminated"))
    }

    @Test func whatTheServerSendsHasTheExampleShapes() async throws {
        try await withInMemoryApp { server in
            let loginResponse = try await server.request(
                "POST", "/v1/player/legislation/login",
                body: String(decoding: try Self.example("login-request"), as: UTF8.self))
            #expect(try Self.shape(Data(loginResponse.body)) == Self.shape(Self.example("login-response")))
            let session = try JSONDecoder().decode(PlayerLoginResponse.self, from: Data(loginResponse.body))
            let headers = ["X-SessionId": session.sessionId]
            let balance = try await server.request("GET", "/v2/player/7000001/balance", headers: headers)
            #expect(try Self.shape(Data(balance.body)) == Self.shape(Self.example("balance")))
            let refused = try await server.request("GET", "/v2/player/7000001/balance")
            #expect(try Self.shape(Data(refused.body)) == Self.shape(Self.example("error-session-expired")))

            let stream = try #require(
                server.answer(
                    "GET", "/v2/player/7000001/information/updates", headers: ["X-SessionId": session.sessionId]
                ).stream)
            try await server.admin.users.postBalance(userId: 7_000_001, amount: -28)
            try await server.admin.sessions.expire(session.sessionId)
            #expect(stream.entries.last == .finished(.complete))
            let frames = stream.events.map { Data($0.data.utf8) }
            #expect(frames.count == 3)
            #expect(try Self.shape(frames[0]) == Self.shape(Self.example("balance-update")))
            #expect(try Self.shape(frames[1]) == Self.shape(Self.example("balance-update-v2")))
            #expect(try Self.shape(frames[2]) == Self.shape(Self.example("session-expiration")))
        }
    }
}
