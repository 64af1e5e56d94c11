import Foundation
import MockBackend
import MockBackendTesting
import TestSupport
import Testing

@Suite("Request journal, state and reset")
struct AdminJournalTests {
    @Test func journalsRequestsButNotAdminCalls() async throws {
        try await withInMemoryApp { server in
            _ = try await login(server)
            _ = try await server.request("GET", "/v2/player/7000001/balance")
            _ = try await server.request("GET", "/__admin/state")
            let list = try await server.request("GET", "/__admin/requests")
            let entries = try JSONDecoder().decode([JournaledRequest].self, from: Data(list.body))
            #expect(entries.map(\.path) == ["/v2/player/7000001/balance", "/v1/player/legislation/login"])
            #expect(entries[0].status == 403)
            #expect(entries[1].status == 200)
            #expect(entries[1].bodyExcerpt.contains(#""username":"demo""#))
            #expect(entries[1].headers["Content-Type"] == "application/json")
        }
    }

    @Test func filtersByMethodPathSinceAndLimit() async throws {
        try await withInMemoryApp { server in
            let start = Date()
            for index in 0..<3 { _ = try await server.request("GET", "/health?n=\(index)") }
            _ = try await login(server)
            let posts = try await server.request("GET", "/__admin/requests?method=POST")
            #expect(try JSONDecoder().decode([JournaledRequest].self, from: Data(posts.body)).count == 1)
            let health = try await server.request("GET", "/__admin/requests?path=/heal*&limit=2")
            let entries = try JSONDecoder().decode([JournaledRequest].self, from: Data(health.body))
            #expect(entries.map(\.target) == ["/health?n=2", "/health?n=1"])
            let later = try await server.request(
                "GET", "/__admin/requests?since=\(Timestamp.iso8601(Date().addingTimeInterval(60)))")
            #expect(later.text == "[]")
            let all = try await server.request(
                "GET", "/__admin/requests?since=\(Timestamp.iso8601(start.addingTimeInterval(-1)))")
            #expect(try JSONDecoder().decode([JournaledRequest].self, from: Data(all.body)).count == 4)
            #expect(try await server.request("GET", "/__admin/requests?since=yesterday").status == 400)
            #expect(try await server.request("GET", "/__admin/requests?limit=0").status == 400)
        }
    }

    @Test func countsWithAMatcherAndClears() async throws {
        try await withInMemoryApp { server in
            for _ in 0..<3 { _ = try await login(server) }
            _ = try await server.request("GET", "/v2/player/7000001/balance", headers: ["X-SessionId": "abc-123"])
            func count(_ matcher: String) async throws -> String {
                try await server.request("POST", "/__admin/requests/count", body: matcher).text
            }
            #expect(try await count(#"{"method":"POST","urlPath":"/v1/player/legislation/login"}"#) == #"{"count":3}"#)
            #expect(try await count(#"{"urlPathPattern":"/v2/player/[0-9]+/balance"}"#) == #"{"count":1}"#)
            #expect(try await count(#"{"headers":{"x-sessionid":{"matches":"abc-[0-9]+"}}}"#) == #"{"count":1}"#)
            #expect(try await count(#"{"headers":{"X-SessionId":{"equalTo":"zzz"}}}"#) == #"{"count":0}"#)
            #expect(try await count(#"{"bodyContains":"demo1234"}"#) == #"{"count":3}"#)
            #expect(try await count(#"{"path":"/v2/**"}"#) == #"{"count":1}"#)
            #expect(try await count(#"{}"#) == #"{"count":4}"#)
            let bad = try await server.request("POST", "/__admin/requests/count", body: #"{"urlPathPattern":"(["}"#)
            #expect(bad.status == 400)
            #expect(bad.text.contains("urlPathPattern"))
            #expect(try await server.request("POST", "/__admin/requests/count", body: #"{"method":5}"#).status == 400)
            #expect(try await server.request("DELETE", "/__admin/requests").text == #"{"cleared":4}"#)
            #expect(try await count("{}") == #"{"count":0}"#)
        }
    }

    @Test func stateShowsUsersSessionsAndStreams() async throws {
        try await withInMemoryApp { server in
            let session = try await login(server)
            let state = try await server.request("GET", "/__admin/state")
            #expect(state.status == 200)
            #expect(state.text.contains(session.sessionId))
            #expect(state.text.contains(#""username":"alice""#))
        }
    }

    @Test func resetReturnsToTheScenario() async throws {
        try await withInMemoryApp { server in
            let session = try await login(server)
            try await server.admin.users.postBalance(userId: 7_000_001, amount: -45.96)
            try await server.admin.users.create(NewUser(username: "bob", password: "pw"))
            try await server.admin.reset()
            try expectPlayerError(
                try await server.request(
                    "GET", "/v2/player/7000001/balance", headers: ["X-SessionId": session.sessionId]),
                status: 403)
            let fresh = try await login(server)
            let balance = try await server.request(
                "GET", "/v2/player/7000001/balance", headers: ["X-SessionId": fresh.sessionId])
            #expect(balance.text.contains(#""totalRealAmount":{"EUR":745.96}"#))
            #expect(!(try await server.admin.users.list()).contains { $0.username == "bob" })
            // Cleared at reset: only the three requests since.
            #expect(try await server.admin.requests.count(RequestMatcher()) == 3)
        }
    }
}
