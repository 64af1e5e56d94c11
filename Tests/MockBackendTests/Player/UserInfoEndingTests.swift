import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// How user-info connections end, and that the stream journal tells each way apart.
@Suite("User-info stream: how connections end")
struct UserInfoEndingTests {
    @Test func theIdleCloseDefaultsToAMinute() {
        #expect(PlayerSettings().userInfoIdleTimeout == .seconds(60))
        #expect(MockBackendConfiguration().player.userInfoIdleTimeout == .seconds(60))
    }

    /// The journal's `endReason` of the one user-info connection of `session`.
    private func endReason(_ server: some AppUnderTest, session: String) async -> String? {
        var reason: String?
        _ = await eventually {
            reason =
                server.app.streams.journal.snapshots(stream: "userinfo/7000001")
                // Header names as they came: HTTP/2 sends them in lower case.
                .first { $0.requestHeaders.first { $0.key.lowercased() == "x-sessionid" }?.value == session }?
                .endReason
            return reason != nil
        }
        return reason
    }

    @Test(
        "the journal tells every end apart",
        arguments: [
            ("idle", "idle"), ("expire", "session_expired"), ("kick", "session_expired"),
            ("terminate", "session_terminated"), ("logout", "logout"), ("admin", "admin"),
            ("graceful", "admin"), ("client", "client_closed"), ("reset", "reset"),
        ].flatMap { ending in Transport.available.map { (ending.0, ending.1, $0) } })
    func theJournalTellsEveryEndApart(ending: String, expected: String, over transport: Transport) async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        try await withApp(over: transport, configuration) { server in
            let session = try await login(server)
            let stream = try await openUserInfo(server, session: session.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            switch ending {
            case "idle": try await server.admin.clock.advance(by: .seconds(61))
            case "expire": try await server.admin.sessions.expire(session.sessionId)
            case "kick": try await server.admin.sessions.expire(session.sessionId, reason: "Kicked")
            case "terminate": try await server.admin.sessions.terminate(session.sessionId)
            case "logout":
                _ = try await server.request(
                    "POST", "/v1/player/logout", headers: ["X-SessionId": session.sessionId], body: "{}")
            case "admin": try await server.admin.streams.disconnect("userinfo/7000001")
            case "graceful": try await server.admin.streams.disconnect("userinfo/7000001", mode: .graceful)
            case "reset":
                // The journal is cleared by the reset: read the feed's account of the end.
                let feed = try await server.openStream("/__admin/events")
                try await server.admin.reset()
                try await feed.receive(untilContains: #""reason":"reset""#)
                #expect(
                    sseEvents(feed.streamedBody).last { $0.data.contains(#""reason":"reset""#) }?.type
                        == "stream.disconnected")
                return
            default: stream.close()
            }
            #expect(await endReason(server, session: session.sessionId) == expected)
        }
    }

    @Test(arguments: Transport.available)
    func anIdleCloseComesAfterTheTimeoutWithoutAnEventAndNotBefore(over transport: Transport) async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        try await withApp(over: transport, configuration) { server in
            let session = try await login(server)
            let stream = try await openUserInfo(server, session: session.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            try await server.admin.clock.advance(by: .seconds(40))
            try await postBalance(server, 1)
            // 40 s + 40 s: 80 s since connect, but only 40 s since the last event.
            try await server.admin.clock.advance(by: .seconds(40))
            #expect(await stream.waitForClose(timeout: .milliseconds(300)) == .stillOpen)
            try await server.admin.clock.advance(by: .seconds(21))
            let response = try await stream.readResponse()
            #expect(frameTypes(sseEvents(response.body)) == ["BALANCE_UPDATE", "BALANCE_UPDATE_V2"])
        }
    }
}
