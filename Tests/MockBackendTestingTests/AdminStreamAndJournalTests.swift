import Foundation
import MockBackendTesting
import TestSupport
import Testing

@Suite("AdminClient: streams and the request journal")
struct AdminStreamAndJournalTests {
    @Test func pushesToAChannelAndDisconnectsItsSubscriber() async throws {
        try await withRunningServer { server in
            let feed = try await server.admin.events.subscribe()
            let reader = try server.connect()
            try reader.send("GET /sse/channels/demo HTTP/1.1\r\nHost: t\r\nX-Client-Id: kit-test\r\n\r\n")
            let connected = try await feed.next(.streamConnected) { $0.string("stream") == "channels/demo" }
            let connection = try #require(connected.int("connection"))

            let pushed = try await server.admin.streams.push(
                to: "channels/demo", data: .object(["hello": .string("world")]), event: "greeting")
            #expect(pushed.stream == "channels/demo" && pushed.id == "1" && pushed.delivered == 1)
            try await reader.receive(untilContains: #"data: {"hello":"world"}"#)
            let flood = try await server.admin.streams.push(to: "channels/demo", data: .string("x"), count: 3)
            #expect(flood.id == "4")
            let one = try await server.admin.streams.push(
                to: "channels/demo", data: .string("just you"), retry: 5000, connection: UInt64(connection))
            #expect(one.delivered == 1)
            try await reader.receive(untilContains: "data: just you")

            let streams = try await server.admin.streams.list()
            #expect(streams.first { $0.name == "channels/demo" }?.subscribers.count == 1)
            #expect(try await server.admin.streams.disconnect("channels/demo", mode: .graceful) == 1)
            try await feed.next(.streamDisconnected) { $0.string("stream") == "channels/demo" }
            let journal = try await server.admin.streams.connections(stream: "channels/demo")
            #expect(journal.count == 1)
            #expect(journal.first?.client == "kit-test")
            #expect(journal.first?.endReason == "admin")
            #expect(journal.first?.deliveredIds == ["1", "2", "3", "4"])

            let unknown = await #expect(throws: UnexpectedResponseError.self) {
                try await server.admin.streams.disconnect("imports/import_nope")
            }
            #expect(unknown?.code == "STREAM_NOT_FOUND")
        }
    }

    @Test func listsCountsAndClearsTheRequestJournal() async throws {
        try await withRunningServer { server in
            _ = try await server.api.login()
            _ = try await server.request("GET", "/health")
            _ = try await server.request("GET", "/health", headers: ["X-Trace": "abc-123"])
            let requests = server.admin.requests
            let listed = try await requests.list(method: "GET", path: "/health")
            #expect(listed.count == 2)
            #expect(try await requests.list(limit: 1).first?.path == "/health")
            #expect(try await requests.list(since: Date().addingTimeInterval(3600)).isEmpty)

            #expect(try await requests.count(RequestMatcher(method: "POST", path: "/v1/player/**")) == 1)
            var traced = RequestMatcher()
            traced.headers = ["X-Trace": RequestMatcher.HeaderCondition(matches: "[a-z]+-[0-9]+")]
            #expect(try await requests.count(traced) == 1)
            #expect(try await requests.clear() == 3)
            #expect(try await requests.count(RequestMatcher()) == 0)
        }
    }

    @Test func resetsToTheScenario() async throws {
        try await withRunningServer { server in
            try await server.admin.users.create(NewUser(username: "carol", password: "pw"))
            try await server.admin.faults.add(.forbidden)
            try await server.admin.reset()
            #expect(try await server.admin.users.list().count == 2)
            #expect(try await server.admin.faults.list().isEmpty)
        }
    }
}
