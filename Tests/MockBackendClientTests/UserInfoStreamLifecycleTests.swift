import Foundation
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// The user-info stream through an app's life: a Last-Event-ID and an idle timeout given at
/// the start, suspend and resume, reconnect now.
@Suite("User-info stream: lifecycle")
struct UserInfoStreamLifecycleTests {
    @Test func suspendClosesTheConnectionAndResumeReplaysWhatWasMissed() async throws {
        try await withRunningServer { server in
            let login = try await server.api.login()
            let stream = server.api.userInfoStream(
                for: login,
                configuration: UserInfoStreamConfiguration(policy: quickPolicy, clientId: "suspending-app"))
            let drain = await startDraining(stream, on: server)
            try await server.admin.users.postBalance(userId: login.userId, amount: -28)
            #expect(await eventually { drain.amounts == [-28] })

            stream.suspend()
            #expect(stream.isSuspended)
            #expect(await userInfoSubscribers(server, 0))
            try await server.admin.users.postBalance(userId: login.userId, amount: 10)
            try await Task.sleep(for: .milliseconds(100))
            #expect(drain.amounts == [-28])

            stream.resume()
            #expect(await eventually { drain.amounts == [-28, 10] })
            let connections = try await userInfoConnections(server)
            #expect(connections.map(\.lastEventId) == [nil, "2"])
            #expect(stream.lastEventID == "4")
            stream.stop()
            #expect(await eventually { drain.ended.current })
            #expect(drain.failure.current == nil)
        }
    }

    @Test func reconnectNowResumesFromTheLastIdWithoutWaitingForABackoff() async throws {
        try await withRunningServer { server in
            let login = try await server.api.login()
            // A backoff would wait 5 s; reconnecting now must not.
            let stream = UserInfoStream(
                baseURL: server.baseURL, userId: login.userId, sessionId: login.sessionId,
                policy: ReconnectionPolicy(initialDelay: .seconds(5), jitter: 0))
            let drain = await startDraining(stream, on: server)
            try await server.admin.users.postBalance(userId: login.userId, amount: -5)
            #expect(await eventually { drain.amounts == [-5] })

            stream.reconnectNow()
            let reconnected = try await eventually(timeout: .seconds(2)) {
                let connections = try await userInfoConnections(server)
                return connections.count == 2 && connections[0].endedAt != nil
                    && server.app.streams.existingStream(named: "userinfo/7000001")?.snapshot.subscribers.count == 1
            }
            #expect(reconnected)
            #expect(try await userInfoConnections(server).last?.lastEventId == "2")
            try await server.admin.users.postBalance(userId: login.userId, amount: 7)
            #expect(await eventually { drain.amounts == [-5, 7] })
            #expect(!drain.ended.current)
            stream.stop()
        }
    }

    @Test func aLastEventIDGivenAtTheStartIsSentAndWhatFollowsItIsReplayed() async throws {
        try await withRunningServer { server in
            let login = try await server.api.login()
            let first = UserInfoStream(baseURL: server.baseURL, userId: login.userId, sessionId: login.sessionId)
            let firstDrain = UserInfoDrain(first)
            first.start()
            #expect(await userInfoSubscribers(server, 1))
            try await server.admin.users.postBalance(userId: login.userId, amount: -1)
            try await server.admin.users.postBalance(userId: login.userId, amount: 2)
            #expect(await eventually { firstDrain.amounts == [-1, 2] })
            first.stop()
            #expect(await userInfoSubscribers(server, 0))

            // Another run of the app read up to id 2 (the first posting's two frames).
            let second = UserInfoStream(
                baseURL: server.baseURL, userId: login.userId, sessionId: login.sessionId,
                configuration: UserInfoStreamConfiguration(lastEventID: "2"))
            let secondDrain = UserInfoDrain(second)
            second.start()
            #expect(await eventually { secondDrain.amounts == [2] })
            #expect(try await userInfoConnections(server).last?.lastEventId == "2")
            second.stop()
        }
    }

    /// The stream sends no heartbeat; the client's own idle timeout notices a silent
    /// connection and reconnects, long before the server's 60 s idle close.
    @Test func aSilentConnectionIsDroppedAfterTheIdleTimeoutAndReopened() async throws {
        try await withRunningServer { server in
            let login = try await server.api.login()
            let stream = UserInfoStream(
                baseURL: server.baseURL, userId: login.userId, sessionId: login.sessionId,
                configuration: UserInfoStreamConfiguration(policy: quickPolicy, idleTimeout: .seconds(1)))
            stream.start()
            // The default bound (30 s): the reconnect takes about a second, but the start of a
            // whole run on two cores can hold the client's tasks up for many more.
            let reopened = try await eventually {
                let connections = try await userInfoConnections(server)
                return connections.count >= 2 && connections[0].endedAt != nil
            }
            #expect(reopened)
            stream.stop()
        }
    }
}
