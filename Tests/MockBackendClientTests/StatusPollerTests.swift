import Foundation
import MockBackend
import MockBackendAPI
import MockBackendClient
import MockBackendHTTP
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// A server with a manual clock: imports move only by `advance`.
func manualServerConfiguration() -> MockBackendConfiguration {
    var configuration = MockBackendConfiguration.forTesting()
    configuration.clock = .manual
    configuration.seed = 11
    return configuration
}

/// `/conformance/sse/raw` answering exactly `body` with `mime`.
func rawURL(_ server: RunningServer, body: String, mime: String = "text/event-stream") -> URL {
    let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
    return URL(string: "\(server.baseURL)/conformance/sse/raw?mime=\(encode(mime))&body=\(encode(body))")!
}

/// Reads every status a poller yields, and how it ended.
private func drain<Status>(_ poller: StatusPoller<Status>) async -> (statuses: [Status], error: (any Error)?) {
    var statuses: [Status] = []
    do {
        for try await status in poller.statuses() { statuses.append(status) }
        return (statuses, nil)
    } catch {
        return (statuses, error)
    }
}

@Suite("StatusPoller against the server")
struct StatusPollerTests {
    @Test func pollsEveryIntervalUntilTheImportCompletesAndStops() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 40)
            let clock = TestClock.automatic()
            let poller = StatusPoller<ImportStatus>(
                url: server.baseURL.appendingPathComponent(ImportPaths.status(jobId: jobId)), interval: .seconds(3),
                clock: clock)
            let seen = LockedValue<[ImportStatus]>([])
            let ended = LockedValue(false)
            Task {
                for try await status in poller.statuses() { seen.withLock { $0.append(status) } }
                ended.withLock { $0 = true }
            }
            #expect(await eventually { seen.current.count >= 2 })
            #expect(seen.current.first?.status == .queued)
            try await server.admin.imports.complete(jobId)
            #expect(await eventually { ended.current })
            let last = try #require(seen.current.last)
            #expect(last.status == .complete)
            #expect(last.successfulRows == 40)
            #expect(seen.current.dropLast().allSatisfy { !$0.isFinished })
            // One sleep between reads, none after the last.
            #expect(clock.sleeps == Array(repeating: .seconds(3), count: seen.current.count - 1))
        }
    }

    @Test func aFailedStatusEndsPollingToo() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 10)
            try await server.admin.imports.fail(jobId)
            let poller = StatusPoller<ImportStatus>(
                url: server.baseURL.appendingPathComponent(ImportPaths.status(jobId: jobId)), interval: .seconds(1),
                clock: TestClock.automatic())
            let (statuses, error) = await drain(poller)
            #expect(error == nil)
            #expect(statuses.map(\.status) == [.error])
            #expect(statuses.first?.isFailed == true)
        }
    }

    @Test func notFoundAndForbiddenEndAtOnceWithTypedErrors() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let clock = TestClock.automatic()
            let missing = StatusPoller<ImportStatus>(
                url: server.baseURL.appendingPathComponent(ImportPaths.status(jobId: "import_nope")),
                interval: .seconds(1), clock: clock)
            let (none, notFound) = await drain(missing)
            #expect(none.isEmpty)
            #expect(notFound as? StatusPollingError == .notFound)
            await #expect(throws: StatusPollingError.notFound) { try await missing.fetch() }

            // The player API answers 403 without a session.
            let forbidden = StatusPoller<Data>(
                url: server.baseURL.appendingPathComponent("v2/player/7000001/balance"), interval: .seconds(1),
                clock: clock, decode: { $0 }, isFinal: { _ in true })
            let (_, unauthorized) = await drain(forbidden)
            #expect(unauthorized as? StatusPollingError == .unauthorized(status: 403))
            #expect(clock.sleeps.isEmpty)
        }
    }

    @Test func aTransient503IsRetriedOnTheNextTick() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let clock = TestClock.automatic()
            // The first read gets 503 (with Retry-After: 0), the next one 200.
            let url = try #require(
                URL(string: "\(server.baseURL)/conformance/sse/status-then-ok?status=503&key=poller503"))
            let poller = StatusPoller<String>(
                url: url, interval: .seconds(2), clock: clock, decode: { String(decoding: $0, as: UTF8.self) },
                isFinal: { _ in true })
            let (statuses, error) = await drain(poller)
            #expect(error == nil)
            #expect(statuses.count == 1)
            #expect(statuses.first?.contains("data: ok") == true)
            #expect(clock.sleeps == [.seconds(2)])
        }
    }

    @Test func networkErrorsAreRetriedUpToTheLimit() async throws {
        let clock = TestClock.automatic()
        // A port nobody listens on: every read is refused.
        let poller = StatusPoller<ImportStatus>(
            url: try #require(URL(string: "http://127.0.0.1:1/api/v2/imports/x")), interval: .seconds(5),
            maxConsecutiveFailures: 3, clock: clock)
        let (statuses, error) = await drain(poller)
        #expect(statuses.isEmpty)
        #expect(error as? StatusPollingError == .unavailable(status: nil))
        #expect(clock.sleeps == [.seconds(5), .seconds(5)])
        await #expect(throws: StatusPollingError.unavailable(status: nil)) { try await poller.fetch() }
    }

    @Test func aBodyThatDoesNotDecodeEndsPolling() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let poller = StatusPoller<ImportStatus>(
                url: rawURL(server, body: #"{"jobId":"import_1","status":"complete"}"#, mime: "application/json"),
                interval: .seconds(1), clock: TestClock.automatic())
            let (statuses, error) = await drain(poller)
            #expect(statuses.isEmpty)
            guard case .malformedStatus? = error as? StatusPollingError else {
                Issue.record("expected malformedStatus, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func aGenerationStatusWithNullsDecodesAndIsFinal() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let body =
                #"{"id":"gen_9f","status":"failed","progress":40,"createdAt":"2026-11-22T10:00:00Z","#
                + #""completedAt":null,"error":"GPU out of memory","imageUrl":null}"#
            let poller = StatusPoller<GenerationStatus>(
                url: rawURL(server, body: body, mime: "application/json"), interval: .seconds(5),
                clock: TestClock.automatic())
            let status = try await poller.fetch()
            #expect(status.status == .failed)
            #expect(status.isFinished && status.isFailed)
            #expect(status.error == "GPU out of memory")
            #expect(status.imageUrl == nil)
            #expect(status.progress == 40)
        }
    }
}
