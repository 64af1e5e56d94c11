import Foundation
import MockBackendTesting
import Testing

/// The session expires while the app listens to the user-info stream: the app sees
/// `SESSION_EXPIRATION`, the stream ends, and the session is dead everywhere.
@Suite struct SessionExpiryTests {
    @Test func anExpiredSessionEndsTheUserInfoStream() async throws {
        try await withRunningServer { server in
            let login = try await server.api.login(username: "demo", password: "demo1234")
            let feed = try await server.admin.events.subscribe()
            let stream = server.api.userInfoStream(for: login)
            stream.start()
            try await feed.next(.streamConnected) { $0.string("stream")?.hasPrefix("userinfo/") == true }

            try await server.admin.sessions.expire(login.sessionId, reason: "Expired", code: 1)

            var messages: [UserInfoMessage] = []
            for try await message in stream.messages { messages.append(message) }  // ends after the expiry
            guard case .sessionExpiration(let body)? = messages.last else {
                Issue.record("no SESSION_EXPIRATION: \(messages)")
                return
            }
            #expect(body.exitReason == "Expired" && body.exitReasonCode == 1)
            let balance = try await server.request(
                "GET", "/v2/player/\(login.userId)/balance", headers: ["X-SessionId": login.sessionId])
            #expect(balance.status == 403)
        }
    }
}
