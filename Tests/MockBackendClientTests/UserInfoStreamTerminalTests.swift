import Foundation
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// Terminal messages end the user-info stream in the read loop, by their `type`, whatever
/// their body, and before any reconnection is scheduled.
@Suite("User-info stream: terminal messages")
struct UserInfoStreamTerminalTests {
    /// A `SESSION_EXPIRATION` whose body drifted (a number where the contract has a string)
    /// used to be skipped, leaving the stream open on a dead session.
    @Test func aSessionExpirationWhoseBodyDriftedStillEndsTheStreamAndIsReported() async throws {
        try await withRunningServer { server in
            let login = try await server.api.login()
            let stream = UserInfoStream(
                baseURL: server.baseURL, userId: login.userId, sessionId: login.sessionId, policy: quickPolicy)
            let drain = await startDraining(stream, on: server)
            let drifted: JSONValue = .object([
                "type": .string("SESSION_EXPIRATION"),
                "body": .object([
                    "userId": .integer(7_000_001), "sessionId": .string(login.sessionId),
                    "exitReason": .string("Expired"), "exitReasonCode": .string("1"),
                ]),
            ])
            try await server.admin.streams.push(to: "userinfo/7000001", data: drifted)

            #expect(await eventually(timeout: .seconds(3)) { drain.ended.current })
            #expect(drain.failure.current == nil)
            guard case .undecodable(let type, _, let error) = drain.messages.current.last else {
                Issue.record("no undecodable message: \(drain.messages.current)")
                return
            }
            #expect(type == "SESSION_EXPIRATION")
            #expect(error.codingPath == ["body", "userId"])
            #expect(stream.source?.state == .closed(.sessionOver("SESSION_EXPIRATION")))
            #expect(await userInfoSubscribers(server, 0))
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await userInfoConnections(server).count == 1)
        }
    }

    /// The expiry and the server's close arrive together; the stop must be decided before
    /// the close is read, so the source never backs off to reconnect (it used to, in
    /// another task: in 3 of 10 runs against this stub).
    @Test func aTerminalFrameFollowedByTheCloseNeverSchedulesAReconnect() async throws {
        try await withRunningServer { server in
            let frame =
                #"{"type":"SESSION_TERMINATED","body":{"userId":"7000001","sessionId":"s","reason":"Elsewhere"}}"#
            let mapping = """
                {"priority":1,"request":{"method":"GET","urlPath":"/v2/player/7000001/information/updates"},
                 "response":{"sse":{"close":true,"events":[{"data":\(frame),"id":"9"}]}}}
                """
            #expect(try await server.request("POST", "/__admin/mappings", body: mapping).status == 201)
            for _ in 0..<20 {
                let stream = UserInfoStream(
                    baseURL: server.baseURL, userId: 7_000_001, sessionId: "s",
                    policy: ReconnectionPolicy(initialDelay: .milliseconds(1), maxAttempts: 3, jitter: 0))
                let drain = UserInfoDrain(stream)
                stream.start()
                #expect(await eventually { drain.ended.current })
                guard let source = stream.source else { continue }
                // A stream of the states made now starts with the last one: the stop (all of
                // them, if a busy machine has not ended the stream yet: never a backoff). A
                // reconnection would also show in the request count below.
                var states: [EventSourceState] = []
                for await state in source.states { states.append(state) }
                #expect(states.last == .closed(.sessionOver("Elsewhere")))
                #expect(!states.contains { if case .backingOff = $0 { true } else { false } })
                #expect(stream.lastEventID == "9")
            }
            let requests = try await server.admin.requests.count(
                RequestMatcher(method: "GET", path: "/v2/player/7000001/information/updates"))
            #expect(requests == 20)
        }
    }

    @Test func decodingReadsTheTypeFirstAndKeepsWhatFails() {
        let truncated = #"{"type":"SESSION_TERMINATED","body":{"userId":"7000001"}}"#
        let message = UserInfoMessage.decode(truncated)
        guard case .undecodable("SESSION_TERMINATED", truncated, let error) = message else {
            Issue.record("\(message)")
            return
        }
        #expect(error.codingPath == ["body", "sessionId"])
        #expect(message.sessionEndReason == "SESSION_TERMINATED")
        let garbage = UserInfoMessage.decode("not json")
        guard case .undecodable(nil, "not json", _) = garbage else {
            Issue.record("\(garbage)")
            return
        }
        #expect(garbage.sessionEndReason == nil)
        let unknown = UserInfoMessage.decode(#"{"type":"BONUS_AWARDED","body":1}"#)
        #expect(unknown.sessionEndReason == nil)
    }
}
