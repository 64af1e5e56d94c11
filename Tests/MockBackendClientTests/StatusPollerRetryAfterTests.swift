import Foundation
import MockBackendClient
import MockBackendTesting
import TestSupport
import Testing

@Suite("StatusPoller Retry-After bounds", .fewAtATime)
struct StatusPollerRetryAfterTests {
    @Test func aHugeRetryAfterIsCappedAtTheMaximum() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let rule =
                #"{"match":{"path":"/conformance/sse/headers"},"fault":"#
                + #"{"kind":"status","status":503,"retryAfter":9223372036854775807}}"#
            let added = try await server.request("POST", "/__admin/faults", body: rule)
            #expect(added.status == 201)
            let clock = TestClock()
            let poller = StatusPoller<String>(
                url: server.baseURL.appendingPathComponent("conformance/sse/headers"), interval: .seconds(2),
                clock: clock, decode: { String(decoding: $0, as: UTF8.self) }, isFinal: { _ in true })
            let reader = Task { for try await _ in poller.statuses() {} }
            #expect(await clock.sleepers(atLeast: 1))
            #expect(clock.sleeps == [.seconds(3600)])
            reader.cancel()
        }
    }
}
