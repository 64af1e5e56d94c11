import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

private func token(_ server: some AppUnderTest, _ email: String = "demo@example.com", _ password: String = "demo1234")
    async throws -> String
{
    let response = try await server.request(
        "POST", "/api/auth/login", body: #"{"email":"\#(email)","password":"\#(password)"}"#)
    #expect(response.status == 200)
    let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
    return try #require(object?["token"] as? String)
}

private func create(_ server: some AppUnderTest, _ token: String, prompt: String = "a lighthouse at dusk") async throws
    -> RawResponse
{
    try await server.request(
        "POST", "/api/generations", headers: ["Authorization": "Bearer \(token)"], body: #"{"prompt":"\#(prompt)"}"#)
}

private func id(of response: RawResponse) throws -> String {
    let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
    return try #require(object?["id"] as? String)
}

private func events(_ body: [UInt8]) -> [ServerSentEvent] {
    var parser = SSEParser()
    return parser.feed(body).compactMap { if case .event(let event) = $0 { event } else { nil } }
}

@Suite("Generation API")
struct GenerationRoutesTests {
    static func manual() -> MockBackendConfiguration {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        return configuration
    }

    @Test func loginGivesABearerFromTheOneSessionStore() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let bearer = try await token(server)
            let balance = try await server.request(
                "GET", "/api/tokens/balance", headers: ["Authorization": "Bearer \(bearer)"])
            #expect(balance.text == #"{"balance":10}"#)
            // The token is a player session: the player API accepts it, and one expiry ends both.
            #expect(
                try await server.request("GET", "/v2/player/7000001/balance", headers: ["X-SessionId": bearer]).status
                    == 200)
            try await server.admin.sessions.expire(bearer)
            let expired = try await server.request(
                "GET", "/api/tokens/balance", headers: ["Authorization": "Bearer \(bearer)"])
            #expect(expired.status == 401)
            #expect(expired.text.contains("SESSION_EXPIRED"))
        }
    }

    @Test func refusesBadLoginsAndMissingBearers() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let wrong = try await server.request(
                "POST", "/api/auth/login", body: #"{"email":"demo@example.com","password":"x"}"#)
            #expect(wrong.status == 401)
            #expect(wrong.text.contains("INVALID_CREDENTIALS"))
            let missing = try await server.request("POST", "/api/auth/login", body: #"{"email":"demo@example.com"}"#)
            #expect(missing.status == 400)
            #expect(missing.text.contains("'password'"))
            let noBearer = try await server.request("POST", "/api/generations", body: #"{"prompt":"x"}"#)
            #expect(noBearer.status == 401)
            #expect(noBearer.headers["WWW-Authenticate"] == "Bearer")
            let badBearer = try await server.request(
                "GET", "/api/tokens/balance", headers: ["Authorization": "Bearer nope"])
            #expect(badBearer.status == 401)
            let bearer = try await token(server)
            #expect(try await create(server, bearer, prompt: " ").status == 400)
            #expect(
                try await server.request(
                    "POST", "/api/generations", headers: ["Authorization": "Bearer \(bearer)"], body: "{}"
                ).text.contains("'prompt'"))
        }
    }

    @Test func generationStreamsProgressThenCompletedAndPollingAgrees() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let bearer = try await token(server)
            let created = try await create(server, bearer)
            #expect(created.status == 201)
            #expect(created.text.contains(#""status":"queued""#))
            #expect(created.text.contains(#""progress":0"#))
            let generationID = try id(of: created)
            let auth = "Authorization: Bearer \(bearer)\r\n"
            let stream = try await server.openStream(
                "/api/generations/\(generationID)/progress", headers: ["Authorization": "Bearer \(bearer)"])
            try await server.admin.clock.advance(by: .seconds(10))
            let halfway = try await server.request(
                "GET", "/api/generations/\(generationID)", headers: ["Authorization": "Bearer \(bearer)"])
            #expect(halfway.text.contains(#""progress":50"#))
            #expect(halfway.text.contains(#""status":"processing""#))
            try await server.admin.clock.advance(by: .seconds(10))
            let transcript = events(try await stream.readResponse().body)
            #expect(transcript.map(\.effectiveType) == Array(repeating: "progress", count: 10) + ["completed"])
            #expect(transcript.first?.data.contains(#""progress":10"#) == true)
            #expect(transcript.last?.data.contains(#""generationId":"\#(generationID)""#) == true)
            let done = try await server.request(
                "GET", "/api/generations/\(generationID)", headers: ["Authorization": "Bearer \(bearer)"])
            let snapshot = try JSONDecoder().decode(GenerationStatus.self, from: Data(done.body))
            #expect(snapshot.status == .completed)
            #expect(snapshot.progress == 100)
            #expect(snapshot.completedAt != nil)
            #expect(done.text.contains(#""error":null"#))
            let image = try await server.request(
                "GET", snapshot.imageUrl ?? "", headers: ["Authorization": "Bearer \(bearer)"])
            #expect(image.headers["Content-Type"] == "image/png")
            #expect(image.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let caughtUp = try await server.get(
                "/api/generations/\(generationID)/progress", headers: "\(auth)Last-Event-ID: 11\r\n")
            #expect(caughtUp.status == 204)
        }
    }

    @Test func adminFailIsReportedOnBothPaths() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let bearer = try await token(server)
            let generationID = try id(of: try await create(server, bearer))
            try await server.admin.clock.advance(by: .seconds(4))
            let snapshot = try await server.admin.generations.fail(generationID, message: "GPU on fire")
            #expect(snapshot.status == .failed)
            #expect(snapshot.error == "GPU on fire")
            let stream = try await server.get(
                "/api/generations/\(generationID)/progress", headers: "Authorization: Bearer \(bearer)\r\n")
            let last = try #require(events(stream.body).last)
            #expect(last.type == "failed")
            #expect(last.data.contains("GPU on fire"))
            #expect(try await server.request("POST", "/__admin/generations/\(generationID)/complete").status == 409)
        }
    }

    @Test func tokensRunOutWith402() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let bearer = try await token(server, "alice@example.com", "alice1234")
            for _ in 0..<3 { #expect(try await create(server, bearer).status == 201) }
            let refused = try await create(server, bearer)
            #expect(refused.status == 402)
            #expect(refused.text.contains("INSUFFICIENT_TOKENS"))
            let balance = try await server.request(
                "GET", "/api/tokens/balance", headers: ["Authorization": "Bearer \(bearer)"])
            #expect(balance.text == #"{"balance":0}"#)
        }
    }

    @Test func unknownAndOtherUsersGenerationsAre404() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let demo = try await token(server)
            let alice = try await token(server, "alice@example.com", "alice1234")
            let generationID = try id(of: try await create(server, demo))
            for path in [
                "/api/generations/\(generationID)", "/api/generations/\(generationID)/progress",
                "/api/generations/gen_nope",
            ] {
                let response = try await server.request("GET", path, headers: ["Authorization": "Bearer \(alice)"])
                #expect(response.status == 404, "\(path)")
                #expect(response.text.contains("GENERATION_NOT_FOUND"))
            }
            #expect(try await server.request("POST", "/__admin/generations/gen_nope/fail").status == 404)
            #expect(try await server.request("POST", "/__admin/generations/gen_nope/complete").status == 404)
            let notReady = try await server.request(
                "GET", "/api/generations/\(generationID)/image.png", headers: ["Authorization": "Bearer \(demo)"])
            #expect(notReady.status == 404)
        }
    }

    @Test func adminListsEveryGenerationWithOwnerPromptAndStream() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            #expect(try await server.request("GET", "/__admin/generations").text == "[]")
            let first = try id(of: try await create(server, try await token(server), prompt: "one"))
            let second = try id(
                of: try await create(server, try await token(server, "alice@example.com", "alice1234"), prompt: "two"))
            try await server.admin.generations.fail(first, message: "GPU")
            let listed = try await server.request("GET", "/__admin/generations")
            #expect(listed.status == 200)
            let entries = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.body)) as? [[String: Any]])
            let byId = Dictionary(
                uniqueKeysWithValues: entries.compactMap { entry in
                    (entry["id"] as? String).map { ($0, entry) }
                })
            #expect(Set(byId.keys) == [first, second])
            #expect(byId[first]?["status"] as? String == "failed")
            #expect(byId[first]?["error"] as? String == "GPU")
            #expect(byId[first]?["userId"] as? Int == 7_000_001)
            #expect(byId[second]?["userId"] as? Int == 7_000_002)
            #expect(byId[second]?["prompt"] as? String == "two")
            #expect(byId[second]?["stream"] as? String == "generations/\(second)")
            #expect(byId[second]?["status"] as? String == "queued")
        }
    }
}
