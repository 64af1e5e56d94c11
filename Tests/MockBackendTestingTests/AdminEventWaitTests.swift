import Foundation
import MockBackendTesting
import TestSupport
import Testing

@Suite("AdminClient: waits on the live feed")
struct AdminEventWaitTests {
    @Test func aSubscriptionSeesWhatHappensAfterItAndNothingBefore() async throws {
        try await withRunningServer { server in
            let before = try await server.api.login()
            let feed = try await server.admin.events.subscribe()
            let after = try await server.api.login(username: "alice", password: "alice1234")
            let login = try await feed.next(.login)
            #expect(login.string("sessionId") == after.sessionId)
            #expect(login.int("userId") == 7_000_002)
            #expect(!feed.received.contains { $0.string("sessionId") == before.sessionId })

            try await server.admin.sessions.expire(after.sessionId, reason: "Kicked")
            let expired = try await feed.next(.sessionExpired)
            #expect(expired.string("reason") == "Kicked" && expired.int("code") == 3)
        }
    }

    @Test func eachEventArrivesTypedAsTheServerPublishedIt() async throws {
        try await withRunningServer { server in
            let feed = try await server.admin.events.subscribe()
            let login = try await server.api.login()
            let typed = try await feed.next(.login).event
            #expect(typed == .login(.init(userId: login.userId, sessionId: login.sessionId, api: "player")))
            try await server.admin.sessions.terminate(login.sessionId, reason: "Elsewhere")
            guard case .sessionTerminated(let terminated) = try await feed.next(.sessionTerminated).event else {
                Issue.record("not typed as session.terminated")
                return
            }
            #expect(terminated.sessionId == login.sessionId && terminated.reason == "Elsewhere")
            #expect(terminated.streamsEnded == 0)
        }
    }

    @Test func firstFindsAnEventThatHasHappenedAlready() async throws {
        try await withRunningServer { server in
            let login = try await server.api.login()
            try await server.admin.sessions.terminate(login.sessionId)
            let terminated = try await server.admin.events.first(.sessionTerminated)
            #expect(terminated.string("sessionId") == login.sessionId)
            let request = try await server.admin.events.first(.request) {
                $0.string("target") == "/v1/player/legislation/login"
            }
            #expect(request.int("status") == 200)
        }
    }

    @Test func aWaitThatNothingAnswersTimesOutNamingWhatItSaw() async throws {
        try await withRunningServer { server in
            _ = try await server.request("GET", "/health")
            let feed = try await server.admin.events.subscribe()
            _ = try await server.request("GET", "/health")
            try await feed.next(.request)
            let timeout = await #expect(throws: AdminEventTimeout.self) {
                try await feed.next(.faultFired, timeout: .milliseconds(300))
            }
            #expect(timeout?.seen.map(\.kind) == [.request])
            #expect(timeout?.description.contains("fault.fired") == true)
        }
    }

    @Test func waitsThroughTheAdminTokenWhenTheServerHasOne() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.adminToken = "s3cret"
        try await withRunningServer(configuration) { server in
            let feed = try await server.admin.events.subscribe()
            let login = try await server.api.login()
            #expect(try await feed.next(.login).string("sessionId") == login.sessionId)
            let refused = await #expect(throws: UnexpectedResponseError.self) {
                try await AdminClient(baseURL: server.baseURL).sessions.list()
            }
            #expect(refused?.code == "ADMIN_UNAUTHORIZED")
        }
    }
}
