import Dispatch
import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// WireMock scenarios: a stub matches only in its required state and its match moves the
/// scenario, in one step; per-client copies; moves on the simulation clock; stream actions.
@Suite("Stub scenarios")
struct StubScenarioTests {
    private static func add(_ mappings: [String], to app: InMemoryApp) {
        for mapping in mappings {
            let added = app.answer("POST", "/__admin/mappings", body: mapping)
            #expect(added.status == 201, "\(added.text)")
        }
    }

    /// "Fail twice, then succeed": each request answered in turn, the last answer kept.
    static let flaky = [
        #"{"scenarioName":"flaky","requiredScenarioState":"Started","newScenarioState":"failed once","request":{"urlPath":"/api/save"},"response":{"status":503,"body":"first"}}"#,
        #"{"scenarioName":"flaky","requiredScenarioState":"failed once","newScenarioState":"saved","request":{"urlPath":"/api/save"},"response":{"status":503,"body":"second"}}"#,
        #"{"scenarioName":"flaky","requiredScenarioState":"saved","request":{"urlPath":"/api/save"},"response":{"status":200,"body":"saved"}}"#,
    ]

    @Test func eachRequestGetsTheAnswerOfTheStateItFinds() async throws {
        try await withInMemoryApp { app in
            Self.add(Self.flaky, to: app)
            let answers = (0..<4).map { _ in app.answer("GET", "/api/save") }
            #expect(answers.map(\.status) == [503, 503, 200, 200])
            #expect(answers.map(\.text) == ["first", "second", "saved", "saved"])
            let listed = app.answer("GET", "/__admin/scenarios").text
            #expect(listed.contains(#""name":"flaky""#))
            #expect(listed.contains(#""state":"saved""#))
            #expect(listed.contains(#""possibleStates":["Started","failed once","saved"]"#), "\(listed)")
            // Back to Started, by the scenario routes and by the global reset.
            #expect(app.answer("POST", "/__admin/scenarios/reset").status == 200)
            #expect(app.answer("GET", "/api/save").text == "first")
            #expect(app.answer("PUT", "/__admin/scenarios/flaky/state", body: #"{"state":"saved"}"#).status == 200)
            #expect(app.answer("GET", "/api/save").text == "saved")
            #expect(app.answer("POST", "/__admin/reset").status < 300)
            #expect(app.answer("GET", "/__admin/scenarios").text.contains(#""scenarios":[]"#))
        }
    }

    /// Rounds of the two races below: 10 in the suite, where their load would hold other
    /// tests' timing back; `.ci/run` runs them alone with `MOCKBACKEND_SCENARIO_RUNS=100`.
    static let runs = ProcessInfo.processInfo.environment["MOCKBACKEND_SCENARIO_RUNS"].flatMap(Int.init) ?? 10

    /// Runs `body` `count` times at once on Dispatch's threads, off the test's own: a
    /// blocked cooperative thread would hold back every other test of the run.
    private static func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: count, execute: body)
                done.resume()
            }
        }
    }

    /// WireMock's documented stateful example (wiremock.org, "Stateful Behaviour": the to-do
    /// list), request by request.
    @Test func wireMocksToDoListExample() async throws {
        try await withInMemoryApp { app in
            Self.add(
                [
                    #"{"scenarioName":"To do list","requiredScenarioState":"Started","request":{"method":"GET","url":"/todo/items"},"response":{"status":200,"body":"<items><item>Buy milk</item></items>"}}"#,
                    #"{"scenarioName":"To do list","requiredScenarioState":"Started","newScenarioState":"Cancel newspaper item added","request":{"method":"POST","url":"/todo/items","bodyPatterns":[{"contains":"Cancel newspaper subscription"}]},"response":{"status":201}}"#,
                    #"{"scenarioName":"To do list","requiredScenarioState":"Cancel newspaper item added","request":{"method":"GET","url":"/todo/items"},"response":{"status":200,"body":"<items><item>Buy milk</item><item>Cancel newspaper subscription</item></items>"}}"#,
                ], to: app)
            #expect(app.answer("GET", "/todo/items").text == "<items><item>Buy milk</item></items>")
            // A body the pattern does not take matches nothing, and moves nothing.
            #expect(app.answer("POST", "/todo/items", body: "Buy bread").status == 404)
            #expect(app.answer("POST", "/todo/items", body: "Cancel newspaper subscription").status == 201)
            #expect(
                app.answer("GET", "/todo/items").text
                    == "<items><item>Buy milk</item><item>Cancel newspaper subscription</item></items>")
            #expect(app.answer("GET", "/__admin/scenarios").text.contains(#""state":"Cancel newspaper item added""#))
        }
    }

    @Test func bodyPatternsMatchTextAndJSON() async throws {
        try await withInMemoryApp { app in
            Self.add(
                [
                    #"{"request":{"method":"POST","urlPath":"/orders","bodyPatterns":[{"equalToJson":{"items":[1,2],"gift":true},"ignoreArrayOrder":true}]},"response":{"body":"gift order"}}"#,
                    #"{"request":{"method":"POST","urlPath":"/orders","bodyPatterns":[{"equalToJson":"{\"items\":[]}","ignoreExtraElements":true},{"matches":".*rush.*"}]},"response":{"body":"rush order"}}"#,
                    #"{"request":{"method":"POST","urlPath":"/notes","bodyPatterns":[{"absent":true}]},"response":{"body":"empty note"}}"#,
                ], to: app)
            #expect(app.answer("POST", "/orders", body: #"{"gift":true,"items":[2,1]}"#).text == "gift order")
            #expect(app.answer("POST", "/orders", body: #"{"gift":true,"items":[2,1,3]}"#).status == 404)
            #expect(app.answer("POST", "/orders", body: #"{"items":[],"note":"rush"}"#).text == "rush order")
            #expect(app.answer("POST", "/orders", body: "not json").status == 404)
            #expect(app.answer("POST", "/notes").text == "empty note")
            #expect(app.answer("POST", "/notes", body: "x").status == 404)
            let refused = app.answer(
                "POST", "/__admin/mappings",
                body: #"{"request":{"bodyPatterns":[{"equalToJson":"{not json"}]},"response":{}}"#)
            #expect(refused.status == 400)
            #expect(refused.text.contains("request.bodyPatterns[0].equalToJson is a string that holds no JSON"))
        }
    }

    /// 1,000 requests at once on a `Started → Next` stub: exactly one finds `Started`.
    @Test func matchingAndMovingAreOneStep() async throws {
        try await withInMemoryApp { app in
            Self.add(
                [
                    #"{"scenarioName":"race","requiredScenarioState":"Started","newScenarioState":"Next","request":{"urlPath":"/race"},"response":{"body":"started"}}"#,
                    #"{"scenarioName":"race","requiredScenarioState":"Next","request":{"urlPath":"/race"},"response":{"body":"next"}}"#,
                ], to: app)
            let responder = app.app.responder
            for run in 1...Self.runs {
                let firsts = LockedValue(0)
                await Self.concurrently(1000) { _ in
                    let request = HTTPRequest(method: "GET", target: "/race", headers: ["Host": "127.0.0.1"])
                    if case .bytes(let body) = responder.respond(to: request).body, body == Array("started".utf8) {
                        firsts.withLock { $0 += 1 }
                    }
                }
                #expect(firsts.current == 1, "run \(run): \(firsts.current) requests saw Started")
                _ = app.answer("POST", "/__admin/scenarios/reset")
            }
        }
    }

    /// With `scenarioScope` on a header, 50 clients at once each walk their own copy.
    @Test func eachScopeValueHasItsOwnCopy() async throws {
        try await withInMemoryApp { app in
            Self.add(
                Self.flaky.map {
                    $0.replacingOccurrences(
                        of: #""scenarioName":"flaky","#,
                        with: #""scenarioName":"flaky","scenarioScope":{"header":"X-SessionId"},"#)
                }, to: app)
            let responder = app.app.responder
            for run in 1...Self.runs {
                let seen = LockedValue([String: [String]]())
                await Self.concurrently(50) { client in
                    var answers: [String] = []
                    for _ in 0..<3 {
                        let request = HTTPRequest(
                            method: "GET", target: "/api/save",
                            headers: ["Host": "127.0.0.1", "X-SessionId": "run\(run)-client\(client)"])
                        if case .bytes(let body) = responder.respond(to: request).body {
                            answers.append(String(decoding: body, as: UTF8.self))
                        }
                    }
                    seen.withLock { $0["\(client)"] = answers }
                }
                let crossTalk = seen.current.filter { $0.value != ["first", "second", "saved"] }
                #expect(crossTalk.isEmpty, "run \(run): \(crossTalk)")
            }
            // A request without the header has a copy of its own.
            #expect(app.answer("GET", "/api/save").text == "first")
            let listed = app.answer("GET", "/__admin/scenarios").text
            #expect(listed.contains(#"{"state":"saved","value":"run\#(Self.runs)-client7"}"#), "\(listed.prefix(300))")
        }
    }

    /// A transition moves the scenario on the simulation clock: under a manual clock only
    /// when an advance passes it, and not if the scenario moved on meanwhile.
    @Test func aTransitionFiresOnTheSimulationClock() async throws {
        var configuration = MockBackendConfiguration()
        configuration.clock = .manual
        try await withInMemoryApp(configuration) { app in
            Self.add(
                [
                    #"{"scenarioName":"login","requiredScenarioState":"Started","newScenarioState":"signed in","transition":{"afterMs":60000,"to":"expired"},"request":{"urlPath":"/login"},"response":{"body":"welcome"}}"#,
                    #"{"scenarioName":"login","requiredScenarioState":"signed in","request":{"urlPath":"/me"},"response":{"body":"me"}}"#,
                    #"{"scenarioName":"login","requiredScenarioState":"expired","request":{"urlPath":"/me"},"response":{"status":401,"body":"expired"}}"#,
                ], to: app)
            #expect(app.answer("GET", "/login").text == "welcome")
            app.advance(by: .milliseconds(59_999))
            #expect(app.answer("GET", "/me").text == "me")
            app.advance(by: .milliseconds(1))
            #expect(app.answer("GET", "/me").status == 401)
            // Signed in again and reset before the minute: the old transition does nothing.
            _ = app.answer("POST", "/__admin/scenarios/reset")
            #expect(app.answer("GET", "/login").text == "welcome")
            app.advance(by: .milliseconds(30_000))
            _ = app.answer("POST", "/__admin/scenarios/reset")
            #expect(app.answer("GET", "/login").text == "welcome")
            app.advance(by: .milliseconds(30_000))
            #expect(app.answer("GET", "/me").text == "me", "a transition planned before the reset acted")
            app.advance(by: .milliseconds(30_000))
            #expect(app.answer("GET", "/me").status == 401)
        }
    }

    /// A transition to a state no mapping requires is no error: the scenario moves there, the
    /// listing names it, and only stubs that require no state answer in it (README, "Scenarios").
    @Test func aTransitionToAStateNoMappingRequiresLeavesOnlyStatelessStubs() async throws {
        var configuration = MockBackendConfiguration()
        configuration.clock = .manual
        try await withInMemoryApp(configuration) { app in
            Self.add(
                [
                    #"{"scenarioName":"trial","requiredScenarioState":"Started","newScenarioState":"active","transition":{"afterMs":1000,"to":"lapsed"},"request":{"urlPath":"/start"},"response":{"body":"started"}}"#,
                    #"{"scenarioName":"trial","requiredScenarioState":"active","request":{"urlPath":"/feature"},"response":{"body":"on"}}"#,
                    #"{"priority":9,"request":{"urlPath":"/feature"},"response":{"status":402,"body":"pay"}}"#,
                ], to: app)
            #expect(app.answer("GET", "/start").text == "started")
            #expect(app.answer("GET", "/feature").text == "on")
            app.advance(by: .seconds(1))
            let listed = app.answer("GET", "/__admin/scenarios").text
            #expect(listed.contains(#""state":"lapsed""#), "\(listed)")
            #expect(listed.contains(#""possibleStates":["Started","active","lapsed"]"#), "\(listed)")
            #expect(app.answer("GET", "/feature").status == 402)
            #expect(app.answer("GET", "/start").status == 404)
        }
    }

    /// A move's `onEnter` push reaches an open `sse` stub stream before the move's answer;
    /// an `sse` stub that requires a state answers only in it.
    @Test func onEnterPushesIntoAnOpenStreamAndStreamsMayRequireAState() async throws {
        try await withInMemoryApp { app in
            Self.add(
                [
                    #"{"request":{"urlPath":"/jobs/7/events"},"response":{"sse":{"end":"open","events":[{"id":"1","data":"running"}]}}}"#,
                    #"{"scenarioName":"job","requiredScenarioState":"Started","newScenarioState":"cancelled","onEnter":[{"push":{"stream":"replay/jobs/7/events","event":"cancelled","data":{"by":"user"}}},{"disconnect":{"stream":"replay/jobs/7/events","graceful":true}}],"request":{"method":"POST","urlPath":"/jobs/7/cancel"},"response":{"status":202}}"#,
                    #"{"scenarioName":"job","requiredScenarioState":"cancelled","request":{"urlPath":"/jobs/7/summary"},"response":{"sse":{"events":[{"data":"cancelled by user"}]}}}"#,
                ], to: app)
            let stream = try await app.openStream("/jobs/7/events", headers: [:])
            try await stream.receive(untilContains: "data: running")
            #expect(app.answer("GET", "/jobs/7/summary").status == 404)
            #expect(app.answer("POST", "/jobs/7/cancel").status == 202)
            let ended = try await stream.readResponse()
            #expect(ended.text.hasSuffix("event: cancelled\ndata: {\"by\":\"user\"}\n\n"), "\(ended.text)")
            let summary = app.answer("GET", "/jobs/7/summary")
            #expect(summary.status == 200)
            app.run()
            #expect(summary.stream?.text.contains("data: cancelled by user") == true)
        }
    }

    @Test(
        arguments: [
            (#"{"requiredScenarioState":"a","request":{},"response":{}}"#, "requiredScenarioState needs scenarioName"),
            (#"{"scenarioName":"","request":{},"response":{}}"#, "scenarioName must not be empty"),
            (
                #"{"scenarioName":"s","transition":{"afterMs":5,"to":"b"},"request":{},"response":{}}"#,
                "transition needs newScenarioState"
            ),
            (
                #"{"scenarioName":"s","newScenarioState":"b","transition":{"afterMs":5},"request":{},"response":{}}"#,
                "transition.to is required"
            ),
            (
                #"{"scenarioName":"s","onEnter":[{"push":{"stream":"x","data":1}}],"request":{},"response":{}}"#,
                "onEnter needs newScenarioState"
            ),
            (
                #"{"scenarioName":"s","scenarioScope":{"header":""},"request":{},"response":{}}"#,
                "scenarioScope.header must not be empty"
            ),
            (
                #"{"scenarioName":"s","scenarioScope":{"header":"A","query":"b"},"request":{},"response":{}}"#,
                "scenarioScope needs exactly one of header, cookie and query"
            ),
            (
                #"{"scenarioName":"s","newScenarioState":"b","onEnter":[{"push":{"stream":"x"}}],"request":{},"response":{}}"#,
                "onEnter[0].push.data is required"
            ),
            (
                #"{"scenarioName":"s","newScenarioState":"b","onEnter":[{"disconnect":{"stream":"x","reset":true,"graceful":true}}],"request":{},"response":{}}"#,
                "onEnter[0].disconnect.reset cannot be combined with graceful"
            ),
            (
                #"{"scenarioName":""# + String(repeating: "n", count: 10_240) + #"","request":{},"response":{}}"#,
                "scenarioName must be at most 512 characters"
            ),
            (
                #"{"scenarioName":"s","newScenarioState":"b","transition":{"afterMs":5,"to":""#
                    + String(repeating: "s", count: 10_240) + #""},"request":{},"response":{}}"#,
                "transition.to must be at most 512 characters"
            ),
        ])
    func aBadScenarioFieldIsRefusedNamingIt(_ mapping: String, _ detail: String) async throws {
        try await withInMemoryApp { app in
            let answer = app.answer("POST", "/__admin/mappings", body: mapping)
            #expect(answer.status == 400)
            #expect(answer.text.contains("INVALID_MAPPING"))
            #expect(answer.text.contains(detail), "\(answer.text)")
        }
    }

    @Test func theScenarioRoutesRefuseWhatDoesNotExist() async throws {
        try await withInMemoryApp { app in
            Self.add(Self.flaky, to: app)
            let unknown = app.answer("PUT", "/__admin/scenarios/nope/state", body: #"{"state":"Started"}"#)
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("SCENARIO_NOT_FOUND"))
            let badState = app.answer("PUT", "/__admin/scenarios/flaky/state", body: #"{"state":"gone"}"#)
            #expect(badState.status == 400)
            #expect(badState.text.contains("INVALID_SCENARIO_STATE"))
            #expect(badState.text.contains("Started, failed once, saved"))
            let noState = app.answer("PUT", "/__admin/scenarios/flaky/state", body: "{}")
            #expect(noState.status == 400)
        }
    }
}
