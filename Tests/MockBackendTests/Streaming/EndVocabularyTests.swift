import Foundation
import MockBackend
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// One vocabulary for how a stream ended: the request log's `end` says what the stream
/// journal's `endReason` says, over real sockets.
@Suite("How a stream ended, said one way")
struct EndVocabularyTests {
    @Test(
        arguments: [
            ("admin", "admin"), ("expire", "session_expired"), ("logout", "logout"), ("fault", "fault"),
            ("client", "client_closed"),
        ])
    func theRequestLogSaysWhatTheJournalSays(ending: String, expected: String) async throws {
        let (logger, records) = CapturingLogHandler.logger()
        try await withRunningServer(logger: logger) { server in
            let login = try await server.api.login()
            if ending == "fault" {
                try await server.admin.faults.add(
                    .dropAfterEvents(1, reset: false), match: .init(path: "/v2/player/*/information/updates"))
            }
            let stream = try await openUserInfo(server, session: login.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            switch ending {
            case "admin": try await server.admin.streams.disconnect("userinfo/7000001")
            case "expire": try await server.admin.sessions.expire(login.sessionId)
            case "logout":
                _ = try await server.request(
                    "POST", "/v1/player/logout", headers: ["X-SessionId": login.sessionId], body: "{}")
            case "fault": try await postBalance(server, -1)
            default: stream.close()
            }
            let target = "GET /v2/player/7000001/information/updates 200"
            #expect(await eventually { records.all.contains { $0.message == target } })
            let logged = records.all.first { $0.message == target }?.metadata["end"]
            let journaled = server.app.streams.journal.snapshots(stream: "userinfo/7000001").first?.endReason
            #expect(logged == expected)
            #expect(journaled == expected)
        }
    }
}
