import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// The user-info stream sends deltas: a fresh connection gets only what happens after it
/// connects; a reconnect with Last-Event-ID gets what it missed, within its session.
@Suite("User-info stream: deltas and resume")
struct UserInfoDeltaTests {
    @Test(arguments: Transport.available)
    func aFreshConnectionGetsNoEarlierPostingsAndNoPushedFrames(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            // An earlier session's posting, and a frame pushed before the new session began.
            let earlier = try await login(server)
            try await postBalance(server, -5)
            let frame =
                #"{"type":"SESSION_EXPIRATION","body":{"userId":"7000001","sessionId":"old","exitReason":"Expired","exitReasonCode":1,"loginTime":null,"logoutTime":null,"sourceName":"NWA"}}"#
            try await server.admin.streams.push(
                to: "userinfo/7000001", data: JSONDecoder().decode(JSONValue.self, from: Data(frame.utf8)))
            _ = earlier
            let session = try await login(server)
            let stream = try await openUserInfo(server, session: session.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            try await postBalance(server, 7)
            try await stream.receive(untilContains: "BALANCE_UPDATE_V2")
            let events = sseEvents(stream.streamedBody)
            #expect(frameTypes(events) == ["BALANCE_UPDATE", "BALANCE_UPDATE_V2"])
            #expect(events.allSatisfy { $0.data.contains(#""affectedAmount":7"#) })
            #expect(!String(decoding: stream.streamedBody, as: UTF8.self).contains("SESSION_EXPIRATION"))
            #expect(await stream.waitForClose(timeout: .milliseconds(200)) == .stillOpen)
        }
    }

    @Test(arguments: Transport.available)
    func aReconnectWithLastEventIDGetsWhatItMissed(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let session = try await login(server)
            let first = try await openUserInfo(server, session: session.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            try await postBalance(server, -1)
            try await first.receive(untilContains: "BALANCE_UPDATE_V2")
            let seen = sseEvents(first.streamedBody)
            let lastID = try #require(seen.last?.id)
            first.close()
            #expect(await waitForUserInfoSubscribers(server, 0))
            // Missed while away.
            try await postBalance(server, -2)
            let resumed = try await openUserInfo(server, session: session.sessionId, lastEventID: lastID)
            try await resumed.receive(untilContains: "BALANCE_UPDATE_V2")
            let replayed = sseEvents(resumed.streamedBody)
            #expect(frameTypes(replayed) == ["BALANCE_UPDATE", "BALANCE_UPDATE_V2"])
            #expect(replayed.allSatisfy { $0.data.contains(#""affectedAmount":-2"#) })
            #expect(replayed.map(\.id) == [String(Int(lastID)! + 1), String(Int(lastID)! + 2)])
        }
    }

    @Test(
        "an id that means nothing for this session replays nothing",
        arguments: Transport.available, ["earlier session", "never issued", "garbage"])
    func anIDThatMeansNothingReplaysNothing(over transport: Transport, _ kind: String) async throws {
        try await withApp(over: transport) { server in
            let earlier = try await login(server)
            let old = try await openUserInfo(server, session: earlier.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            try await postBalance(server, -3)
            try await old.receive(untilContains: "BALANCE_UPDATE_V2")
            let earlierID = try #require(sseEvents(old.streamedBody).first?.id)
            let session = try await login(server)
            let id =
                switch kind {
                case "earlier session": earlierID
                case "never issued": "999"
                default: "banana"
                }
            let stream = try await openUserInfo(server, session: session.sessionId, lastEventID: id)
            #expect(await waitForUserInfoSubscribers(server, 2))
            try await postBalance(server, 4)
            try await stream.receive(untilContains: "BALANCE_UPDATE_V2")
            let events = sseEvents(stream.streamedBody)
            #expect(events.count == 2)
            #expect(events.allSatisfy { $0.data.contains(#""affectedAmount":4"#) })
            #expect(!String(decoding: stream.streamedBody, as: UTF8.self).contains(": Last-Event-ID"))
        }
    }

    @Test(
        "every frame has an id, the terminal ones too",
        arguments: Transport.available, ["expire", "terminate", "logout"])
    func terminalFramesHaveAnID(over transport: Transport, _ ending: String) async throws {
        try await withApp(over: transport) { server in
            let session = try await login(server)
            let stream = try await openUserInfo(server, session: session.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            try await postBalance(server, 1)
            switch ending {
            case "expire":
                try await server.admin.sessions.expire(session.sessionId)
            case "terminate":
                try await server.admin.sessions.terminate(session.sessionId)
            default:
                _ = try await server.request(
                    "POST", "/v1/player/logout", headers: ["X-SessionId": session.sessionId], body: "{}")
            }
            let response = try await stream.readResponse()
            let events = sseEvents(response.body)
            #expect(frameTypes(events).count == 3)
            #expect(frameTypes(events).last == (ending == "terminate" ? "SESSION_TERMINATED" : "SESSION_EXPIRATION"))
            let ids = events.compactMap(\.id)
            #expect(ids.count == 3)
            #expect(Set(ids).count == 3)
            #expect(ids.map { Int($0) ?? 0 } == ids.map { Int($0) ?? 0 }.sorted())
        }
    }

    @Test(arguments: Transport.available)
    func anotherSessionsEndIsNeitherSentNorReplayed(over transport: Transport) async throws {
        try await withApp(over: transport) { server in
            let leaving = try await login(server)
            let staying = try await login(server)
            let stream = try await openUserInfo(server, session: staying.sessionId)
            #expect(await waitForUserInfoSubscribers(server, 1))
            try await postBalance(server, 1)
            try await stream.receive(untilContains: "BALANCE_UPDATE_V2")
            let lastID = try #require(sseEvents(stream.streamedBody).last?.id)
            try await server.admin.sessions.expire(leaving.sessionId)
            try await postBalance(server, 2)
            try await stream.receive(untilContains: #""affectedAmount":2"#)
            try await stream.receive(untilContains: "BALANCE_UPDATE_V2\"}\n\n", timeout: .seconds(5))
            #expect(!String(decoding: stream.streamedBody, as: UTF8.self).contains("SESSION_EXPIRATION"))
            stream.close()
            #expect(await waitForUserInfoSubscribers(server, 0))
            let resumed = try await openUserInfo(server, session: staying.sessionId, lastEventID: lastID)
            try await resumed.receive(untilContains: #""affectedAmount":2"#)
            try await Task.sleep(for: .milliseconds(100))
            #expect(frameTypes(sseEvents(resumed.streamedBody)) == ["BALANCE_UPDATE", "BALANCE_UPDATE_V2"])
        }
    }
}
