import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

@Suite("SimulationClock")
struct SimulationClockTests {
    @Test func manualClockFiresInDueOrderOnlyWhenAdvanced() {
        let clock = SimulationClock(mode: .manual)
        let log = LockedValue<[String]>([])
        clock.schedule(after: .seconds(3)) { log.withLock { $0.append("c@\(clock.now)") } }
        clock.schedule(after: .seconds(1)) { log.withLock { $0.append("a@\(clock.now)") } }
        clock.repeating(every: .seconds(2)) { log.withLock { $0.append("tick@\(clock.now)") } }
        #expect(clock.advance(by: .milliseconds(999)) == 0)
        #expect(log.current.isEmpty)
        #expect(clock.advance(by: .seconds(4)) == 4)
        #expect(log.current == ["a@1.0 seconds", "tick@2.0 seconds", "c@3.0 seconds", "tick@4.0 seconds"])
        #expect(clock.now == .milliseconds(4999))
    }

    @Test func actionsMayScheduleAndCancel() {
        let clock = SimulationClock(mode: .manual)
        let fired = LockedValue(0)
        let repeating = clock.repeating(every: .seconds(1)) { fired.withLock { $0 += 1 } }
        clock.schedule(after: .milliseconds(2500)) {
            clock.cancel(repeating)
            clock.schedule(after: .seconds(1)) { fired.withLock { $0 += 100 } }
        }
        clock.advance(by: .seconds(10))
        #expect(fired.current == 102)
    }

    @Test func realClockRunsAtItsSpeed() async {
        let clock = SimulationClock(mode: .real(speed: 20))
        let fired = LockedValue(false)
        let start = ContinuousClock.now
        clock.schedule(after: .seconds(2)) { fired.withLock { $0 = true } }
        #expect(await eventually { fired.current })
        // Two simulated seconds at 20x take a tenth of a second of real time.
        #expect(ContinuousClock.now - start >= .milliseconds(95))
        clock.stop()
    }

    @Test func adminClockRoutes() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        try await withInMemoryApp(configuration) { server in
            #expect(try await server.request("GET", "/__admin/clock").text == #"{"mode":"manual","nowMs":0}"#)
            let advanced = try await server.request("POST", "/__admin/clock/advance", body: #"{"ms":1500}"#)
            #expect(advanced.status == 200)
            #expect(advanced.text.contains(#""nowMs":1500"#))
            #expect(try await server.request("PUT", "/__admin/clock", body: #"{"speed":2}"#).status == 409)
            #expect(try await server.request("POST", "/__admin/clock/advance", body: #"{"ms":-1}"#).status == 400)
            #expect(try await server.request("POST", "/__admin/clock/advance", body: #"{"seconds":1}"#).status == 400)
        }
        try await withInMemoryApp { server in
            #expect(try await server.request("POST", "/__admin/clock/advance", body: #"{"ms":1}"#).status == 409)
            let faster = try await server.request("PUT", "/__admin/clock", body: #"{"speed":4}"#)
            #expect(faster.text.contains(#""speed":4"#))
            #expect(try await server.request("PUT", "/__admin/clock", body: #"{"speed":0}"#).status == 400)
        }
    }

    /// With a manual clock, session TTLs and heartbeats happen exactly when the clock is moved.
    @Test func manualClockDrivesSessionTTLAndHeartbeats() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        configuration.heartbeatInterval = .seconds(15)
        configuration.player.sessionTTL = .seconds(60)
        try await withInMemoryApp(configuration) { server in
            let session = try await login(server)
            let channel = try #require(server.answer("GET", "/sse/channels/ticks").stream)
            try await server.admin.clock.advance(by: .milliseconds(14999))
            #expect(!channel.text.contains("keep-alive"))
            try await server.admin.clock.advance(by: .milliseconds(1))
            #expect(channel.text == ": keep-alive\n\n")
            let headers = ["X-SessionId": session.sessionId]
            #expect(try await server.request("GET", "/v2/player/7000001/balance", headers: headers).status == 200)
            try await server.admin.clock.advance(by: .seconds(45))
            #expect(try await server.request("GET", "/v2/player/7000001/balance", headers: headers).status == 403)
        }
    }
}
