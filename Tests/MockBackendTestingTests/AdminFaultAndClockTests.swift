import Foundation
import MockBackendTesting
import TestSupport
import Testing

@Suite("AdminClient: faults and the clock")
struct AdminFaultAndClockTests {
    @Test func addsListsAndRemovesTypedFaults() async throws {
        try await withInMemoryApp { server in
            let faults = server.admin.faults
            let rule = try await faults.add(
                .status(503, body: nil, retryAfter: 2), match: FaultRule.Match(method: "GET", path: "/health"), times: 1
            )
            #expect(rule.id.isEmpty == false)
            #expect(rule.fault == .status(503, body: nil, retryAfter: 2))
            #expect(rule.match.path == "/health")
            #expect(rule.times == 1)
            let drop = try await faults.add(.dropAfterEvents(3, reset: true), match: FaultRule.Match(path: "/sse/**"))
            #expect(try await faults.list().map(\.id) == [rule.id, drop.id])

            #expect(try await server.request("GET", "/health").status == 503)
            #expect(try await server.request("GET", "/health").status == 200)
            let used = try await faults.list().first { $0.id == rule.id }
            #expect(used?.fired == 1)
            try await faults.remove(drop.id)
            #expect(try await faults.list().map(\.id) == [rule.id])

            let unknown = await #expect(throws: UnexpectedResponseError.self) { try await faults.remove(drop.id) }
            #expect(unknown?.code == "FAULT_NOT_FOUND")
            let invalid = await #expect(throws: UnexpectedResponseError.self) {
                try await faults.add(.latency(milliseconds: 5), probability: 2)
            }
            #expect(invalid?.code == "INVALID_FAULT")
            try await faults.add(.forbidden)
            try await faults.add(.reset, match: FaultRule.Match(path: "/nowhere"))
            #expect(try await faults.removeAll() == 3)
        }
    }

    @Test func advancesAManualClock() async throws {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        try await withInMemoryApp(configuration) { server in
            let state = try await server.admin.clock.state()
            #expect(state.mode == "manual" && state.speed == nil && state.nowMs == 0)
            let advanced = try await server.admin.clock.advance(by: .milliseconds(1500))
            #expect(advanced.advancedMs == 1500 && advanced.nowMs == 1500)
            let refused = await #expect(throws: UnexpectedResponseError.self) {
                try await server.admin.clock.setSpeed(10)
            }
            #expect(refused?.code == "CLOCK_IS_MANUAL")
        }
    }

    @Test func setsTheSpeedOfARealClock() async throws {
        try await withInMemoryApp { server in
            let state = try await server.admin.clock.setSpeed(10)
            #expect(state.mode == "real" && state.speed == 10)
            let refused = await #expect(throws: UnexpectedResponseError.self) {
                try await server.admin.clock.advance(by: .seconds(1))
            }
            #expect(refused?.status == 409)
        }
    }
}
