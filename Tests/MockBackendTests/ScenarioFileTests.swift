import Foundation
import MockBackend
import MockBackendTesting
import TestSupport
import Testing

@Suite("Scenario file")
struct ScenarioFileTests {
    @Test func readsUsersWorkflowsAndRatesWithDefaults() throws {
        let scenario = try ScenarioFile.parse(
            Data(
                """
                {"users": [{"username": "zoe", "password": "pw", "userId": 42, "currency": "GBP", "balance": 12.345},
                           {"username": "yan", "password": "pw2"}],
                 "workflows": [{"id": "w1", "iterations": 3, "hats": ["planner"], "paceSeconds": 1.5}],
                 "rates": {"importRowsPerSecond": 10, "generationSeconds": 2, "retention": 50}}
                """.utf8))
        #expect(scenario.users.map(\.username) == ["zoe", "yan"])
        #expect(scenario.users[0].realBalance == 12.35)
        #expect(scenario.users[1].userId == 43)
        #expect(scenario.users[1].currency == "EUR")
        #expect(scenario.users[1].tokens == 10)
        #expect(scenario.workflows.first?.hats == ["planner"])
        #expect(scenario.rates.retention == 50)
    }

    @Test(
        "refuses an invalid file, naming the field",
        arguments: [
            ("not json", "not valid JSON"),
            (#"{"workflows": []}"#, "'users'"),
            (#"{"users": [{"username": "a"}]}"#, "'users.[0].password'"),
            (#"{"users": [{"username": "a", "password": 5}]}"#, "'users.[0].password'"),
            (#"{"users": [{"username": "a", "password": "p", "currency": "euro"}]}"#, "users[0].currency"),
            (#"{"users": [{"username": "a", "password": "p", "balance": -1}]}"#, "users[0].balance"),
            (#"{"users": [{"username": "a", "password": "p"}, {"username": "a", "password": "q"}]}"#, "users[1]"),
            (
                #"{"users": [], "workflows": [{"id": "w", "iterations": 0, "hats": ["x"], "paceSeconds": 1}]}"#,
                "workflows[0].iterations"
            ),
            (
                #"{"users": [], "workflows": [{"id": "w", "iterations": 1, "hats": [], "paceSeconds": 1}]}"#,
                "workflows[0].hats"
            ),
            (
                #"{"users": [], "workflows": [{"id": "w", "iterations": 1, "hats": ["x"]}]}"#,
                "'workflows.[0].paceSeconds'"
            ),
            (#"{"users": [], "rates": {"generationSeconds": 0}}"#, "rates.generationSeconds"),
            (#"{"users": [], "rates": {"retention": 0}}"#, "rates.retention"),
        ])
    func refuses(_ json: String, mentions: String) {
        #expect {
            _ = try ScenarioFile.parse(Data(json.utf8))
        } throws: { error in
            (error as? ScenarioError)?.detail.contains(mentions) == true
        }
    }

    @Test func theAppUsesTheScenarioRates() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        configuration.scenario = try ScenarioFile.parse(
            Data(
                #"{"users": [{"username": "zoe", "password": "pw", "email": "zoe@example.com"}], "rates": {"generationSeconds": 2, "retention": 5}}"#
                    .utf8))
        try await withInMemoryApp(configuration) { server in
            let login = try await server.request(
                "POST", "/api/auth/login", body: #"{"email":"zoe@example.com","password":"pw"}"#)
            let token = try #require(
                (try JSONSerialization.jsonObject(with: Data(login.body)) as? [String: Any])?["token"] as? String)
            let created = try await server.request(
                "POST", "/api/generations", headers: ["Authorization": "Bearer \(token)"], body: #"{"prompt":"x"}"#)
            let id = try #require(
                (try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String)
            try await server.admin.clock.advance(by: .seconds(2))
            let status = try await server.request(
                "GET", "/api/generations/\(id)", headers: ["Authorization": "Bearer \(token)"])
            #expect(status.text.contains(#""status":"completed""#))
            #expect(server.app.streams.defaultRetention == 5)
        }
    }
}
