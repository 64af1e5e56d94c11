import Foundation
import MockBackendClient
import MockBackendTesting
import TestSupport
import Testing

@Suite("StatusPoller Retry-After bounds")
struct StatusPollerRetryAfterTests {
    @Test func aHugeRetryAfterIsCappedAtTheMaximum() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            try await server.admin.faults.add(
                .status(503, body: nil, retryAfter: .max), match: .init(path: "/conformance/sse/headers"))
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
