import Foundation
import MockBackend
import MockBackendAPI
import ServerSentEvents
import TestSupport
import Testing

/// A session's end reaches every stream that belongs to it, at the instant it happens and
/// before any housekeeping of that instant: the app in memory, on a manual clock.
@Suite("Session endings on streams")
struct SessionEndingTests {
    static func manualApp(sessionTTL: Duration? = nil) throws -> InMemoryApp {
        var configuration = MockBackendConfiguration()
        configuration.clock = .manual
        configuration.player.sessionTTL = sessionTTL
        return try InMemoryApp(configuration)
    }

    /// The user-info stream of the logged-in player, opened with the login's session.
    static func openUserInfo(_ app: InMemoryApp, _ login: PlayerLoginResponse) throws -> RecordingSink {
        try #require(
            app.answer(
                "GET", "/v2/player/7000001/information/updates", headers: ["X-SessionId": login.sessionId]
            ).stream)
    }

    static func playerLogin(_ app: InMemoryApp) throws -> PlayerLoginResponse {
        let login = app.answer(
            "POST", "/v1/player/legislation/login", body: #"{"username":"demo","password":"demo1234"}"#)
        return try JSONDecoder().decode(PlayerLoginResponse.self, from: Data(login.body))
    }

    /// `--clock manual --session-ttl 60` with the default 60 s idle close: a stream opened
    /// at the login's instant gets the expiry, not the idle close, on `advance 60000`.
    @Test func theExpiryWinsATieWithTheIdleClose() throws {
        let app = try Self.manualApp(sessionTTL: .seconds(60))
        let login = try Self.playerLogin(app)
        let stream = try Self.openUserInfo(app, login)
        app.advance(by: .seconds(60))
        let last = try #require(stream.events.last, "no frame at all")
        let frame = try JSONDecoder().decode(
            UserInfoEnvelope<SessionExpirationBody>.self, from: Data(last.data.utf8))
        #expect(frame.type == UserInfoMessageType.sessionExpiration)
        #expect(frame.body.exitReason == "Expired")
        #expect(stream.entries.last == .finished(.complete))
        let record = app.app.streams.journal.snapshots(stream: "userinfo/7000001").last
        #expect(record?.endReason == "session_expired")
    }

    /// A quiet stream whose session lives on is still closed as idle after 60 s.
    @Test func aQuietStreamIsClosedAsIdle() throws {
        let app = try Self.manualApp()
        let login = try Self.playerLogin(app)
        let stream = try Self.openUserInfo(app, login)
        app.advance(by: .seconds(59))
        #expect(stream.endReason == nil)
        app.advance(by: .seconds(1))
        #expect(stream.entries == [.finished(.complete)])
        #expect(app.app.streams.journal.snapshots(stream: "userinfo/7000001").last?.endReason == "idle")
    }

    /// A generation's progress stream ends with `event: error` when the bearer session that
    /// opened it ends; the generation goes on for its polling and for other sessions.
    @Test(arguments: ["expire", "terminate"])
    func aGenerationStreamEndsWithItsSession(_ how: String) throws {
        let app = try Self.manualApp()
        func login() throws -> String {
            let answer = app.answer(
                "POST", "/api/auth/login", body: #"{"email":"demo","password":"demo1234"}"#)
            let json = try JSONDecoder().decode([String: JSONValue].self, from: Data(answer.body))
            guard case .string(let token)? = json["token"] else { throw CocoaError(.coderReadCorrupt) }
            return token
        }
        let (mine, other) = (try login(), try login())
        let created = app.answer(
            "POST", "/api/generations", headers: ["Authorization": "Bearer \(mine)"], body: #"{"prompt":"a cat"}"#)
        let id = try JSONDecoder().decode(GenerationCreated.self, from: Data(created.body)).id
        let progress = "/api/generations/\(id)/progress"
        let watched = try #require(app.answer("GET", progress, headers: ["Authorization": "Bearer \(mine)"]).stream)
        let bystander = try #require(
            app.answer("GET", progress, headers: ["Authorization": "Bearer \(other)"]).stream)
        app.advance(by: .seconds(2))
        let ended = app.answer("POST", "/__admin/sessions/\(mine)/\(how)", body: "{}")
        #expect(ended.status == 200)
        app.run()
        let last = try #require(watched.events.last)
        #expect(last.type == "error")
        #expect(
            try JSONDecoder().decode(GenerationSessionEndedEvent.self, from: Data(last.data.utf8))
                == GenerationSessionEndedEvent())
        #expect(watched.entries.last == .finished(.complete))
        let record = app.app.streams.journal.snapshots(stream: "generations/\(id)").first
        #expect(record?.endReason == (how == "expire" ? "session_expired" : "session_terminated"))
        // The other session's stream goes on to the end, without the error.
        app.advance(by: .seconds(30))
        #expect(bystander.events.last?.type == "completed")
        #expect(!bystander.events.contains { $0.type == "error" })
        // A reconnect with the ended session's token is refused.
        #expect(app.answer("GET", progress, headers: ["Authorization": "Bearer \(mine)"]).status == 401)
    }
}
