import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// One event of the admin feed: its type, id and data object.
private struct FeedEvent {
    var type: String
    var id: String?
    var fields: [String: JSONValue]

    subscript(field: String) -> JSONValue? { fields[field] }
}

/// A subscriber of `GET /__admin/events` on a raw connection.
private struct FeedSubscriber {
    let client: RawHTTPClient

    /// Subscribes and returns once the response head has arrived.
    init(_ server: RunningServer, headers: String = "", query: String = "") async throws {
        client = try server.connect()
        try client.send("GET /__admin/events\(query) HTTP/1.1\r\nHost: t\r\n\(headers)\r\n")
        try await client.receive(untilContains: "\r\n\r\n")
    }

    /// Every event received so far, in order.
    var events: [FeedEvent] {
        var parser = SSEParser()
        return parser.feed(client.streamedBody).compactMap { output in
            guard case .event(let event) = output,
                case .object(let fields) = try? JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8))
            else { return nil }
            return FeedEvent(type: event.effectiveType, id: event.id, fields: fields)
        }
    }

    /// Reads until an event of `type` that `matches` arrives; returns it with the instant it
    /// was read off the socket.
    func next(
        _ type: String, timeout: Duration = .seconds(5), where matches: (FeedEvent) -> Bool = { _ in true }
    ) async throws -> (event: FeedEvent, receivedAt: ContinuousClock.Instant) {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while true {
            if let event = events.first(where: { $0.type == type && matches($0) }) { return (event, .now) }
            guard ContinuousClock.now < deadline else { throw RawClientError.timedOut }
            do {
                if try await client.receive(timeout: .milliseconds(50)) == 0 { throw RawClientError.closedByPeer }
            } catch RawClientError.timedOut {
                continue
            }
        }
    }
}

/// The instant before `send`, and the request bytes sent on a new connection (read later).
private func send(
    _ server: RunningServer, _ method: String, _ target: String, body: String = ""
) throws -> (client: RawHTTPClient, sentAt: ContinuousClock.Instant) {
    let client = try server.connect()
    let sentAt = ContinuousClock.now
    try client.send(
        "\(method) \(target) HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
    return (client, sentAt)
}

/// Records a measured latency with the test (a few milliseconds on a quiet machine, far
/// under the 100 ms promised) and checks it against a generous deadline: a busy machine can
/// hold the reader back for seconds, while a feed that waited for a heartbeat or a batch
/// would take the heartbeat interval or more.
private func expectPrompt(_ latency: Duration, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let milliseconds = Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15
    let note = "\(what) reached the feed \(String(format: "%.2f", milliseconds)) ms after the request was sent"
    Attachment.record(note, named: "\(what)-latency.txt", sourceLocation: sourceLocation)
    print(note)
    #expect(latency < TestTiming.scaled(.seconds(10)), "\(note)", sourceLocation: sourceLocation)
}

@Suite("Admin event feed")
struct AdminEventFeedTests {
    @Test func aLoginAndASessionExpiryReachASubscriberAtOnce() async throws {
        try await withRunningServer { server in
            let feed = try await FeedSubscriber(server)
            #expect(String(decoding: feed.client.buffer, as: UTF8.self).contains("text/event-stream"))

            let login = try send(
                server, "POST", "/v1/player/legislation/login", body: #"{"username":"demo","password":"demo1234"}"#)
            let (loginEvent, loginReceived) = try await feed.next("login")
            expectPrompt(loginReceived - login.sentAt, "login")
            let loginResponse = try await login.client.readResponse()
            #expect(loginResponse.status == 200)
            let sessionId = try #require(loginEvent["sessionId"]?.text)
            #expect(loginResponse.text.contains(sessionId))
            #expect(loginEvent["userId"] == .integer(7_000_001))
            #expect(loginEvent["api"] == .string("player"))
            #expect(loginEvent.fields.keys.contains("ts"))

            let expire = try send(
                server, "POST", "/__admin/sessions/\(sessionId)/expire", body: #"{"reason":"Kicked","code":3}"#)
            let (expired, expiredReceived) = try await feed.next("session.expired")
            expectPrompt(expiredReceived - expire.sentAt, "session.expired")
            #expect(try await expire.client.readResponse().status == 200)
            #expect(expired["sessionId"] == .string(sessionId))
            #expect(expired["userId"] == .integer(7_000_001))
            #expect(expired["reason"] == .string("Kicked"))
            #expect(expired["code"] == .integer(3))
            #expect(expired["streamsEnded"] == .integer(0))
        }
    }

    @Test func generationLoginsLogoutsAndTerminationsAreNamed() async throws {
        try await withRunningServer { server in
            let feed = try await FeedSubscriber(server)
            let token = try await server.request(
                "POST", "/api/auth/login", body: #"{"email":"alice@example.com","password":"alice1234"}"#)
            #expect(token.status == 200)
            let generation = try await feed.next("login").event
            #expect(generation["api"] == .string("generation"))
            #expect(generation["userId"] == .integer(7_000_002))

            let session = try await login(server).sessionId
            let logout = try await server.request("POST", "/v1/player/logout", headers: ["X-SessionId": session])
            #expect(logout.status == 200)
            let loggedOut = try await feed.next("session.expired").event
            #expect(loggedOut["sessionId"] == .string(session))
            #expect(loggedOut["reason"] == .string("Logout"))
            #expect(loggedOut["code"] == .integer(2))

            let other = try await login(server).sessionId
            try await server.admin.sessions.terminate(other, reason: "Logged in on another device")
            let terminated = try await feed.next("session.terminated").event
            #expect(terminated["sessionId"] == .string(other))
            #expect(terminated["userId"] == .integer(7_000_001))
            #expect(terminated["reason"] == .string("Logged in on another device"))
            #expect(terminated["streamsEnded"] == .integer(0))
        }
    }

    @Test func aJournaledRequestIsPublishedAndAnAdminRequestIsNot() async throws {
        try await withRunningServer { server in
            let feed = try await FeedSubscriber(server)
            #expect(try await server.request("GET", "/__admin/health").status == 200)
            #expect(try await server.request("GET", "/health?probe=1").status == 200)
            #expect(try await server.request("GET", "/nowhere").status == 404)

            let missing = try await feed.next("request") { $0["target"] == .string("/nowhere") }.event
            let requests = feed.events.filter { $0.type == "request" }
            #expect(requests.count == 2)
            let health = try #require(requests.first)
            #expect(health["method"] == .string("GET"))
            #expect(health["target"] == .string("/health?probe=1"))
            #expect(health["status"] == .integer(200))
            #expect(missing["status"] == .integer(404))
            let journaled = try #require(server.app.requests.entries().last)
            #expect(health["id"] == .integer(journaled.id))
            #expect(health["connection"] == .integer(Int(journaled.connection)))
            switch health["durationMs"] {
            case .number(let milliseconds): #expect(milliseconds >= 0)
            case .integer(let milliseconds): #expect(milliseconds >= 0)
            default: Issue.record("durationMs is not a number: \(String(describing: health["durationMs"]))")
            }
        }
    }

    @Test func aChannelStreamConnectsAndDisconnectsButTheFeedItselfIsNotAnnounced() async throws {
        try await withRunningServer { server in
            let feed = try await FeedSubscriber(server)
            let second = try await FeedSubscriber(server)

            let channel = try server.connect()
            try channel.send(
                "GET /sse/channels/x HTTP/1.1\r\nHost: t\r\nX-Client-Id: feed-test\r\nLast-Event-ID: 0\r\n\r\n")
            let connected = try await feed.next("stream.connected").event
            #expect(connected["stream"] == .string("channels/x"))
            #expect(connected["client"] == .string("feed-test"))
            #expect(connected["lastEventId"] == .string("0"))
            guard case .integer(let connection) = connected["connection"] else {
                Issue.record("connection is not a number: \(String(describing: connected["connection"]))")
                return
            }

            server.app.streams.stream(named: "channels/x").publish(ServerSentEvent(data: "one"))
            try await channel.receive(untilContains: "data: one\n\n")
            channel.close()
            let disconnected = try await feed.next("stream.disconnected").event
            #expect(disconnected["stream"] == .string("channels/x"))
            #expect(disconnected["connection"] == .integer(connection))
            #expect(disconnected["reason"] == .string("client_closed"))
            #expect(disconnected["delivered"] == .integer(1))

            // Both feed subscribers are open, and one has been closed now: none of it is on the feed.
            second.client.close()
            #expect(try await server.request("GET", "/health").status == 200)
            _ = try await feed.next("request")
            let streamEvents = feed.events.filter { $0.type.hasPrefix("stream.") }
            #expect(streamEvents.count == 2)
            #expect(!streamEvents.contains { $0["stream"] == .string("admin/events") })
        }
    }

    @Test func aDroppedSubscriberResumesWithLastEventID() async throws {
        try await withRunningServer { server in
            let feed = try await FeedSubscriber(server)
            for target in ["/health?n=1", "/health?n=2", "/health?n=3"] {
                #expect(try await server.request("GET", target).status == 200)
            }
            _ = try await feed.next("request") { $0["target"] == .string("/health?n=3") }
            let seen = feed.events
            #expect(seen.map { $0["target"]?.text } == ["/health?n=1", "/health?n=2", "/health?n=3"])
            let ids = seen.compactMap(\.id).compactMap(Int.init)
            #expect(ids.count == 3)
            #expect(ids == ids.sorted() && Set(ids).count == 3)
            feed.client.close()

            let firstID = try #require(seen.first?.id)
            let byHeader = try await FeedSubscriber(server, headers: "Last-Event-ID: \(firstID)\r\n")
            _ = try await byHeader.next("request") { $0["target"] == .string("/health?n=3") }
            #expect(byHeader.events.map(\.id) == seen.dropFirst().map(\.id))

            let byQuery = try await FeedSubscriber(server, query: "?lastEventId=\(seen[1].id ?? "")")
            _ = try await byQuery.next("request") { $0["target"] == .string("/health?n=3") }
            #expect(byQuery.events.map(\.id) == [seen[2].id])
        }
    }

    /// Request events made while nobody watches are kept as values and logged later; a
    /// subscriber that comes afterwards finds them in order, with consecutive ids, among
    /// the other events (the login between them), and with the time of each request.
    @Test func requestsMadeWhileNobodyWatchesAreReplayedInOrderWithTheirIDs() async throws {
        try await withRunningServer { server in
            #expect(try await server.request("GET", "/health?n=1").status == 200)
            _ = try await login(server)
            #expect(try await server.request("GET", "/health?n=2").status == 200)
            let feed = try await FeedSubscriber(server)
            _ = try await feed.next("request") { $0["target"] == .string("/health?n=2") }
            let seen = feed.events
            #expect(seen.map(\.type) == ["request", "login", "request", "request"])
            #expect(
                seen.map { $0["target"]?.text } == ["/health?n=1", nil, "/v1/player/legislation/login", "/health?n=2"])
            let ids = seen.compactMap { $0.id.flatMap(Int.init) }
            #expect(ids == Array(1...4))
            let times = seen.compactMap { $0["ts"]?.text }
            #expect(times.count == 4 && times == times.sorted())

            // Live from now on, and a later request follows at once.
            #expect(try await server.request("GET", "/health?n=3").status == 200)
            let live = try await feed.next("request") { $0["target"] == .string("/health?n=3") }.event
            #expect(live.id == "5")
        }
    }

    /// A subscriber that left and comes back with its Last-Event-ID gets the requests made
    /// while nobody watched.
    @Test func aSubscriberThatComesBackGetsTheRequestsMadeWhileNobodyWatched() async throws {
        try await withRunningServer { server in
            let feed = try await FeedSubscriber(server)
            #expect(try await server.request("GET", "/health?n=1").status == 200)
            let first = try await feed.next("request").event
            feed.client.close()
            #expect(await eventually { server.app.streams.stream(named: "admin/events").subscriberCount == 0 })
            for target in ["/health?n=2", "/health?n=3"] {
                #expect(try await server.request("GET", target).status == 200)
            }
            let back = try await FeedSubscriber(server, headers: "Last-Event-ID: \(first.id ?? "")\r\n")
            _ = try await back.next("request") { $0["target"] == .string("/health?n=3") }
            #expect(back.events.map { $0["target"]?.text } == ["/health?n=2", "/health?n=3"])
            #expect(back.events.map(\.id) == ["2", "3"])
        }
    }

    /// More requests than the feed retains, made while nobody watches: the oldest are never
    /// encoded, yet every id is issued as if each had been, so the retained ones keep the
    /// ids they would have had and an id that left retention is known to have existed.
    @Test func moreRequestsThanRetainedWhileNobodyWatchesKeepTheirIDs() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.scenario.rates.retention = 5
        try await withRunningServer(configuration) { server in
            for index in 1...23 {
                #expect(try await server.request("GET", "/health?n=\(index)").status == 200)
            }
            let feed = try await FeedSubscriber(server)
            _ = try await feed.next("request") { $0["target"] == .string("/health?n=23") }
            #expect(feed.events.map(\.id) == ["19", "20", "21", "22", "23"])
            #expect(feed.events.map { $0["target"]?.text } == (19...23).map { "/health?n=\($0)" })
            let listed = try await server.admin.streams.list()
            #expect(listed.first { $0.name == "admin/events" }?.lastEventId == "23")
        }
    }

    /// Heartbeats and idle checks do not log the waiting request events (they read no
    /// stream's log); listing the streams does.
    @Test func onlyAReaderOfTheFeedLogsTheWaitingRequestEvents() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.heartbeatInterval = .milliseconds(20)
        try await withRunningServer(configuration) { server in
            for index in 1...3 {
                #expect(try await server.request("GET", "/health?n=\(index)").status == 200)
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.app.events.waitingRequestEvents == 3)
            _ = try await server.admin.streams.list()
            #expect(server.app.events.waitingRequestEvents == 0)
        }
    }
}
