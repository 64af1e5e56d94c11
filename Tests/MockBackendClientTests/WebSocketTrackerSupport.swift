import Foundation
import MockBackend
import MockBackendAPI
import MockBackendClient
import MockBackendSupport
import MockBackendTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the V1 tests share: a V1 upload, a tracker on the loopback transport with the
/// `.importV1` profile and a manual clock, what the server says of the job's socket, and
/// the outcome V2 gives for the same job.
enum V1 {
    /// Uploads through V1's `POST /api/import/csv-gemini`; returns the job id.
    static func upload(_ server: RunningServer, rows: Int, badEvery: Int = 0) async throws -> String {
        try await uploadImport(server, rows: rows, badEvery: badEvery, path: "/" + ImportPaths.uploadV1)
    }

    /// A V1 tracker whose requests carry `X-Client-Id: v1-<jobId>`; `random` draws the
    /// polling jitter (0.5 by default: every poll 4 s apart).
    static func tracker(
        _ server: RunningServer, _ jobId: String, clock: TestClock, random: @escaping @Sendable () -> Double = { 0.5 },
        transport: any WebSocketTransport = LoopbackWebSocketTransport(),
        configure: (inout JobTrackerConfiguration) -> Void = { _ in }
    ) -> JobTracker<ImportJobKind> {
        var configuration = JobTrackerConfiguration.importV1
        configuration.headers = ["X-Client-Id": "v1-\(jobId)"]
        configure(&configuration)
        return JobTracker(
            v1ImportJobId: jobId, baseURL: server.baseURL, configuration: configuration, transport: transport,
            clock: clock, random: random)
    }

    /// Starts `tracker` and lets the job send its first two events (`started` and one
    /// `progress`) over the socket; returns what the tracker reported, still recording.
    static func startAndFollowTwoEvents(
        _ server: RunningServer, _ jobId: String, _ tracker: JobTracker<ImportJobKind>
    ) async throws -> Followed<ImportJobKind> {
        let followed = Followed(tracker)
        tracker.start()
        #expect(await eventually { subscribers(server, jobId) == 1 })
        for ms in [100, 200] { try await advance(server, ms: ms) }
        #expect(await eventually { followed.events.count == 2 })
        return followed
    }

    /// Open connections on the job's stream: its sockets.
    static func subscribers(_ server: RunningServer, _ jobId: String) -> Int {
        server.app.streams.existingStream(named: "imports/\(jobId)")?.subscriberCount ?? 0
    }

    /// The WebSocket connections the job's stream has had, in the stream journal (the V2
    /// tracker of `v2Outcome` adds event-stream ones).
    static func sockets(_ server: RunningServer, _ jobId: String) -> [StreamConnectionSnapshot] {
        server.app.streams.journal.snapshots(stream: "imports/\(jobId)").filter { $0.protocol == "websocket" }
    }

    /// How many times the tracker of `jobId` read `GET /v1/jobs/{jobId}/status`.
    static func statusReads(_ server: RunningServer, _ jobId: String) async throws -> Int {
        var matcher = RequestMatcher(method: "GET")
        matcher.urlPath = "/" + ImportPaths.statusV1(jobId: jobId)
        matcher.headers = ["X-Client-Id": .init(equalTo: "v1-\(jobId)")]
        return try await server.admin.requests.count(matcher)
    }

    /// Adds a fault rule on the progress socket's path.
    static func fault(_ server: RunningServer, _ fault: Fault, times: Int? = nil) async throws {
        try await server.admin.faults.add(fault, match: .init(path: "/ws/progress"), times: times)
    }

    /// The outcome of a finished job as the V2 tracker sees it on the V2 stream, which
    /// replays the whole job.
    static func v2Outcome(_ server: RunningServer, _ jobId: String) async throws -> JobOutcome<ImportSummary> {
        let tracker = JobTracker(importJobId: jobId, baseURL: server.baseURL, clock: TestClock.automatic())
        tracker.start()
        return try await outcome(of: tracker)
    }

    /// The tracker's outcome; a tracker that has none within `timeout` (a broken fallback)
    /// is cancelled, so the test fails instead of hanging.
    static func outcome(
        of tracker: JobTracker<ImportJobKind>, timeout: Duration = .seconds(20)
    ) async throws -> JobOutcome<ImportSummary> {
        let deadline = Task {
            try await Task.sleep(for: TestTiming.scaled(timeout))
            tracker.cancel()
        }
        defer { deadline.cancel() }
        return try await tracker.outcome
    }

    /// Ends the job on the server, then lets the tracker's polling read the end: the
    /// client's clock moves a poll interval at a time while a poll sleeps on it.
    static func finishByPolling(
        _ server: RunningServer, _ jobId: String, _ tracker: JobTracker<ImportJobKind>, clock: TestClock
    ) async throws -> JobOutcome<ImportSummary> {
        try await runToTheEnd(server, jobId)
        for _ in 0..<10 where !tracker.phase.isTerminal {
            _ = await eventually { clock.sleeperCount > 0 || tracker.phase.isTerminal }
            clock.advance(by: .seconds(5))
        }
        return try await outcome(of: tracker)
    }
}

/// A transport that notes every message its connections deliver, for tests that must
/// see what the tracker was told (pings in particular).
struct RecordingTransport: WebSocketTransport {
    let inner: any WebSocketTransport
    let received = LockedValue<[WebSocketMessage]>([])

    func connect(_ request: URLRequest) async throws -> any WebSocketConnection {
        Connection(inner: try await inner.connect(request), received: received)
    }

    /// How many pings were delivered.
    var pings: Int { received.withLock { $0.filter { $0 == .ping }.count } }

    private struct Connection: WebSocketConnection {
        let inner: any WebSocketConnection
        let received: LockedValue<[WebSocketMessage]>

        func receive() async throws -> WebSocketMessage {
            let message = try await inner.receive()
            received.withLock { $0.append(message) }
            return message
        }

        func cancel(code: UInt16) { inner.cancel(code: code) }
    }
}

/// Random draws from a fixed list, then its last value for good.
final class Draws: Sendable {
    private let values: LockedValue<[Double]>

    init(_ values: [Double]) {
        self.values = LockedValue(values)
    }

    func next() -> Double {
        values.withLock { $0.count > 1 ? $0.removeFirst() : $0.first ?? 0 }
    }
}

extension ImportStreamEvent {
    /// The event's name: the `type` of its V1 message.
    var type: String {
        switch self {
        case .started: ImportEventType.started
        case .progress: ImportEventType.progress
        case .complete: ImportEventType.complete
        case .error: ImportEventType.error
        }
    }
}
