import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// How user-info connections end, and that the stream journal tells each way apart.
@Suite("User-info stream: how connections end", .fewAtATime)
struct UserInfoEndingTests {
    @Test func theIdleCloseDefaultsToAMinute() {
        #expect(PlayerSettings().userInfoIdleTimeout == .seconds(60))
        #expect(MockBackendConfiguration().player.userInfoIdleTimeout == .seconds(60))
    }

    /// The journal's `endReason` of the one user-info connection of `session`.
    private func endReason(_ server: RunningServer, session: String) async -> String? {
        var reason: String?
        _ = await eventually {
            reason =
                server.app.streams.journal.snapshots(stream: "userinfo/7000001")
                .first { $0.requestHeaders["X-SessionId"] == session }?.endReason
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
        ])
    func theJournalTellsEveryEndApart(ending: String, expected: String) async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        try await withRunningServer(configuration) { server in
            let session = try await login(server)
            let stream = try openUserInfo(server, session: session.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            let sessionPath = "/__admin/sessions/\(session.sessionId)"
            switch ending {
            case "idle":
                _ = try await server.request("POST", "/__admin/clock/advance", body: #"{"ms":61000}"#)
            case "expire": _ = try await server.request("POST", sessionPath + "/expire")
            case "kick": _ = try await server.request("POST", sessionPath + "/expire", body: #"{"reason":"Kicked"}"#)
            case "terminate": _ = try await server.request("POST", sessionPath + "/terminate")
            case "logout":
                _ = try await server.request(
                    "POST", "/v1/player/logout", headers: ["X-SessionId": session.sessionId], body: "{}")
            case "admin": _ = try await server.request("POST", "/__admin/streams/userinfo/7000001/disconnect")
            case "graceful":
                _ = try await server.request(
                    "POST", "/__admin/streams/userinfo/7000001/disconnect", body: #"{"graceful":true}"#)
            case "reset":
                // The journal is cleared by the reset: read the feed's account of the end.
                let feed = try server.connect()
                try feed.send("GET /__admin/events HTTP/1.1\r\nHost: t\r\n\r\n")
                try await feed.receive(untilContains: "\r\n\r\n")
                _ = try await server.request("POST", "/__admin/reset")
                try await feed.receive(untilContains: #""reason":"reset""#)
                return
            default: stream.close()
            }
            #expect(await endReason(server, session: session.sessionId) == expected)
        }
    }

    @Test func anIdleCloseComesAfterTheTimeoutWithoutAnEventAndNotBefore() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        try await withRunningServer(configuration) { server in
            let session = try await login(server)
            let stream = try openUserInfo(server, session: session.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            _ = try await server.request("POST", "/__admin/clock/advance", body: #"{"ms":40000}"#)
            try await postBalance(server, 1)
            // 40 s + 40 s: 80 s since connect, but only 40 s since the last event.
            _ = try await server.request("POST", "/__admin/clock/advance", body: #"{"ms":40000}"#)
            #expect(await stream.waitForClose(timeout: .milliseconds(300)) == .stillOpen)
            _ = try await server.request("POST", "/__admin/clock/advance", body: #"{"ms":21000}"#)
            let response = try await stream.readResponse()
            #expect(frameTypes(sseEvents(response.body)) == ["BALANCE_UPDATE", "BALANCE_UPDATE_V2"])
        }
    }
}
