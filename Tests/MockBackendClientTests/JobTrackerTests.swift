import Foundation
import MockBackend
import MockBackendAPI
import MockBackendClient
import MockBackendHTTP
import MockBackendSupport
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

// MARK: - Helpers

/// A CSV with a header and `rows` rows; every `badEvery`-th row misses a column.
private func importCSV(rows: Int, badEvery: Int = 0) -> String {
    var lines = ["title,author,year"]
    for index in 1...rows {
        lines.append(badEvery > 0 && index % badEvery == 0 ? "Book \(index),Author" : "Book \(index),Author,1999")
    }
    return lines.joined(separator: "\r\n") + "\r\n"
}

/// Uploads a CSV as `curl -F file=@books.csv` does, to V2's upload or to `path`; returns
/// the job id.
func uploadImport(
    _ server: RunningServer, rows: Int, badEvery: Int = 0, path: String = "/" + ImportPaths.upload
) async throws -> String {
    let boundary = "------------------------5c1e7dbd2b1c4a8f"
    let body =
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"books.csv\"\r\n"
        + "Content-Type: text/csv\r\n\r\n\(importCSV(rows: rows, badEvery: badEvery))\r\n--\(boundary)--\r\n"
    let response = try await server.request(
        "POST", path, headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], body: body)
    try #require(response.status == 202)
    let accepted = try JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))
    guard case .string(let jobId)? = accepted["jobId"] else { throw RawClientError.malformedResponse(response.text) }
    return jobId
}

/// Moves the server's manual clock.
func advance(_ server: RunningServer, ms: Int) async throws {
    try await server.admin.clock.advance(by: .milliseconds(ms))
}

/// The stream journal of an import, through the admin API.
private func connections(_ server: RunningServer, _ jobId: String) async throws -> [StreamConnectionSnapshot] {
    try await server.admin.streams.connections(stream: "imports/\(jobId)")
}

/// The same journal read in-process, for waiting on it.
private func journal(_ server: RunningServer, _ jobId: String) -> [StreamConnectionSnapshot] {
    server.app.streams.journal.snapshots(stream: "imports/\(jobId)")
}

/// How many status reads the tracker of `jobId` made (its requests carry its `X-Client-Id`;
/// the test's own reads do not).
private func statusReads(_ server: RunningServer, _ jobId: String) async throws -> Int {
    var matcher = RequestMatcher(method: "GET")
    matcher.urlPath = "/" + ImportPaths.status(jobId: jobId)
    matcher.headers = ["X-Client-Id": .init(equalTo: "tracker-\(jobId)")]
    return try await server.admin.requests.count(matcher)
}

/// Collects what a tracker reports, for assertions from the test task.
final class Followed<Kind: JobKind>: Sendable {
    let updates = LockedValue<[JobUpdate<Kind>]>([])
    let failure = LockedValue<(any Error)?>(nil)
    let ended = LockedValue(false)

    init(_ tracker: JobTracker<Kind>) {
        Task { [updates, failure, ended] in
            do {
                for try await update in tracker.updates { updates.withLock { $0.append(update) } }
            } catch {
                failure.withLock { $0 = error }
            }
            ended.withLock { $0 = true }
        }
    }

    var eventIDs: [String] {
        updates.current.compactMap { if case .event(_, let id) = $0 { id } else { nil } }
    }

    var events: [Kind.Event] {
        updates.current.compactMap { if case .event(let event, _) = $0 { event } else { nil } }
    }

    var statuses: [Kind.Status] {
        updates.current.compactMap { if case .status(let status) = $0 { status } else { nil } }
    }
}

private func importTracker(
    _ server: RunningServer, _ jobId: String, clock: TestClock, base: URL? = nil,
    configure: (inout JobTrackerConfiguration) -> Void = { _ in }
) -> JobTracker<ImportJobKind> {
    var configuration = JobTrackerConfiguration.import
    configuration.policy = ReconnectionPolicy(initialDelay: .milliseconds(100), maxAttempts: 3, jitter: 0)
    configuration.headers = ["X-Client-Id": "tracker-\(jobId)"]
    configure(&configuration)
    return JobTracker(
        importJobId: jobId, baseURL: base ?? server.baseURL, configuration: configuration, clock: clock)
}

/// Advances the server clock in import ticks until the job's status is final.
func runToTheEnd(_ server: RunningServer, _ jobId: String) async throws {
    for _ in 0..<200 {
        let status = try JSONDecoder().decode(
            ImportStatus.self, from: Data(try await server.request("GET", "/\(ImportPaths.status(jobId: jobId))").body))
        if status.isFinished { return }
        try await advance(server, ms: 200)
    }
    Issue.record("import \(jobId) did not finish")
}

// MARK: - Against the server

@Suite("JobTracker against the server")
struct JobTrackerTests {
    @Test func followsAnImportOnItsStreamToTheOutcome() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 30, badEvery: 10)
            let tracker = importTracker(server, jobId, clock: TestClock.automatic())
            let followed = Followed(tracker)
            tracker.start()
            try await runToTheEnd(server, jobId)
            let outcome = try await tracker.outcome
            #expect(outcome == .completed(ImportSummary(totalRows: 30, successfulRows: 27, failedRows: 3)))
            #expect(await eventually { followed.ended.current })
            #expect(tracker.phase == .finished)
            #expect(followed.updates.current.last == .finished(outcome))
            let ids = followed.eventIDs
            #expect(ids == (1...ids.count).map(String.init))
            guard case .started = followed.events.first, case .complete = followed.events.last else {
                Issue.record("expected started … complete, got \(followed.events)")
                return
            }
            #expect(followed.updates.current.compactMap(\.progress?.fraction).last == 1)
            #expect(tracker.lastEventID == ids.last)
            // The stream told everything: no status read.
            #expect(try await statusReads(server, jobId) == 0)
        }
    }

    /// The stream drops at 40 %; the tracker reconnects with Last-Event-ID and reads every
    /// remaining event once, including those published while it was away.
    @Test(arguments: ClientTransport.available)
    func resumesADroppedStreamWithLastEventIDAndReadsEveryEventOnce(over transport: ClientTransport) async throws {
        try await withServer(over: transport, manualServerConfiguration()) { server, base in
            let jobId = try await uploadImport(server, rows: 100)
            let clock = TestClock.automatic()
            let tracker = importTracker(server, jobId, clock: clock, base: base)
            let followed = Followed(tracker)
            tracker.start()
            try await advance(server, ms: 100)  // queued → started (id 1)
            for _ in 0..<4 { try await advance(server, ms: 200) }  // 10 rows a tick: 40 % at id 5
            #expect(await eventually { followed.eventIDs.count == 5 })
            #expect(followed.updates.current.compactMap(\.progress).last?.fraction == 0.4)

            try await server.admin.streams.disconnect("imports/\(jobId)")
            for _ in 0..<2 { try await advance(server, ms: 200) }  // ids 6 and 7 while the client is away
            #expect(await eventually { journal(server, jobId).count == 2 })
            try await runToTheEnd(server, jobId)
            #expect(
                try await tracker.outcome
                    == .completed(ImportSummary(totalRows: 100, successfulRows: 100, failedRows: 0)))
            #expect(await eventually { followed.ended.current })
            let ids = followed.eventIDs
            #expect(ids == (1...ids.count).map(String.init))  // every event, once, in order
            let records = try await connections(server, jobId)
            #expect(records.count == 2)
            #expect(records[0].deliveredIds == (1...5).map(String.init))
            #expect(records[1].lastEventId == "5")
            #expect(records[1].deliveredIds == (6...ids.count).map(String.init))
            // The reconnect waited at least the `retry: 5000` the import stream advertises.
            #expect(clock.sleeps.first == .seconds(5))
        }
    }

    /// A stream that has nothing after the client's Last-Event-ID answers 204; the tracker
    /// stops reading, learns the outcome from the status, and it is the stream's outcome.
    @Test(arguments: ClientTransport.available)
    func reconnectingAfterCompleteGets204AndTheSameOutcome(over transport: ClientTransport) async throws {
        try await withServer(over: transport, manualServerConfiguration()) { server, base in
            let jobId = try await uploadImport(server, rows: 20, badEvery: 4)
            try await server.admin.imports.complete(jobId)
            let first = importTracker(server, jobId, clock: TestClock.automatic(), base: base)
            first.start()
            let streamed = try await first.outcome
            let lastEventID = try #require(first.lastEventID)

            let second = importTracker(server, jobId, clock: TestClock.automatic(), base: base) {
                $0.lastEventID = lastEventID
            }
            let followed = Followed(second)
            second.start()
            #expect(try await second.outcome == streamed)
            #expect(await eventually { followed.ended.current })
            #expect(streamed == .completed(ImportSummary(totalRows: 20, successfulRows: 15, failedRows: 5)))
            #expect(followed.events.isEmpty)
            #expect(followed.statuses.map(\.status) == [.complete])
            let streamRequests = try await server.admin.requests.list(path: "/api/v2/imports/*/stream")
            #expect(streamRequests.first?.status == 204)
            #expect(
                streamRequests.first?.headers.first { $0.key.lowercased() == "last-event-id" }?.value == lastEventID)
        }
    }

    /// "Completed while away": the app sits in the background for 40 s, the job completes,
    /// and on return the status says so: no new stream connection.
    @Test func completedWhileAwayIsReportedFromTheStatusWithoutReconnecting() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 100)
            let clock = TestClock.automatic()
            let tracker = importTracker(server, jobId, clock: clock)
            let followed = Followed(tracker)
            tracker.start()
            try await advance(server, ms: 300)
            #expect(await eventually { followed.eventIDs.count == 2 })

            tracker.suspend()
            #expect(tracker.phase == .suspended)
            #expect(await eventually { journal(server, jobId).first?.endedAt != nil })
            try await server.admin.imports.complete(jobId)
            clock.advance(by: .seconds(40))
            tracker.resume()

            #expect(
                try await tracker.outcome
                    == .completed(ImportSummary(totalRows: 100, successfulRows: 100, failedRows: 0)))
            #expect(await eventually { followed.ended.current })
            #expect(followed.statuses.map(\.status) == [.complete])
            #expect(try await connections(server, jobId).count == 1)
            #expect(try await statusReads(server, jobId) == 1)
            #expect(followed.eventIDs == ["1", "2"])
        }
    }

    /// A pause shorter than the threshold reopens the stream from the last event at once.
    @Test func aShortPauseReopensTheStreamFromTheLastEvent() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 50)
            let clock = TestClock.automatic()
            let tracker = importTracker(server, jobId, clock: clock)
            let followed = Followed(tracker)
            tracker.start()
            try await advance(server, ms: 300)
            #expect(await eventually { followed.eventIDs.count == 2 })
            tracker.suspend()
            #expect(await eventually { journal(server, jobId).first?.endedAt != nil })
            try await advance(server, ms: 400)  // two events while away
            clock.advance(by: .seconds(10))
            tracker.resume()
            #expect(await eventually { journal(server, jobId).count == 2 })
            try await runToTheEnd(server, jobId)
            #expect(try await tracker.outcome.isCompleted)
            #expect(await eventually { followed.ended.current })
            let ids = followed.eventIDs
            #expect(ids == (1...ids.count).map(String.init))
            #expect(try await connections(server, jobId)[1].lastEventId == "2")
            #expect(try await statusReads(server, jobId) == 0)
        }
    }

    @Test func anImportFailedByTheAdminIsReportedOnTheStream() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 100)
            let tracker = importTracker(server, jobId, clock: TestClock.automatic())
            let followed = Followed(tracker)
            tracker.start()
            try await advance(server, ms: 500)
            #expect(await eventually { followed.eventIDs.count >= 2 })
            try await server.admin.imports.fail(jobId, code: "DISK_FULL", message: "No space")
            #expect(try await tracker.outcome == .failed(JobFailure(code: "DISK_FULL", message: "No space")))
            #expect(await eventually { followed.ended.current })
            guard case .error(let error) = followed.events.last else {
                Issue.record("expected the error event last, got \(followed.events)")
                return
            }
            #expect(error.code == "DISK_FULL")
            #expect(try await statusReads(server, jobId) == 0)
        }
    }

    /// The stream is unreachable: after the last reconnection try the tracker polls, and the
    /// failure reaches it there, with the reason the status carries.
    @Test func anImportFailedByTheAdminIsReportedByPolling() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 100)
            var configuration = JobTrackerConfiguration.import
            configuration.policy = ReconnectionPolicy(initialDelay: .milliseconds(100), maxAttempts: 2, jitter: 0)
            let tracker = JobTracker<ImportJobKind>(
                streamURL: try #require(URL(string: "http://127.0.0.1:1/stream")),
                statusURL: server.baseURL.appendingPathComponent(ImportPaths.status(jobId: jobId)),
                configuration: configuration, clock: TestClock.automatic())
            let followed = Followed(tracker)
            tracker.start()
            #expect(await eventually { tracker.phase == .polling && followed.statuses.count >= 2 })
            try await server.admin.imports.fail(jobId)
            #expect(
                try await tracker.outcome
                    == .failed(JobFailure(code: "IMPORT_FAILED", message: "The import failed (admin).")))
            #expect(await eventually { followed.ended.current })
            #expect(followed.statuses.last?.status == .error)
            #expect(followed.events.isEmpty)
        }
    }

    @Test func aMissingJobEndsTrackingWithNotFound() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let tracker = importTracker(server, "import_nope", clock: TestClock.automatic())
            let followed = Followed(tracker)
            tracker.start()
            await #expect(throws: StatusPollingError.notFound) { try await tracker.outcome }
            #expect(await eventually { followed.ended.current })
            #expect(followed.failure.current as? StatusPollingError == .notFound)
            #expect(tracker.phase == .failed)
        }
    }

    @Test func cancelEndsUpdatesAndOutcome() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 10)
            let tracker = importTracker(server, jobId, clock: TestClock.automatic())
            let followed = Followed(tracker)
            tracker.start()
            #expect(await eventually { journal(server, jobId).count == 1 })
            tracker.cancel()
            #expect(await eventually { followed.ended.current })
            #expect(followed.failure.current == nil)
            await #expect(throws: CancellationError.self) { try await tracker.outcome }
            #expect(await eventually { journal(server, jobId).first?.endedAt != nil })
        }
    }
}

// MARK: - Generations

/// A bearer token for demo (10 generation tokens).
private func generationToken(_ server: RunningServer) async throws -> String {
    let response = try await server.request(
        "POST", "/api/auth/login", body: #"{"email":"demo@example.com","password":"demo1234"}"#)
    try #require(response.status == 200)
    let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))
    guard case .string(let token)? = object["token"] else { throw RawClientError.malformedResponse(response.text) }
    return token
}

/// Starts a generation; returns its id.
private func createGeneration(_ server: RunningServer, token: String) async throws -> String {
    let response = try await server.request(
        "POST", "/api/generations", headers: ["Authorization": "Bearer \(token)"], body: #"{"prompt":"a lighthouse"}"#)
    try #require(response.status == 201)
    let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))
    guard case .string(let id)? = object["id"] else { throw RawClientError.malformedResponse(response.text) }
    return id
}

/// A tracker whose stream cannot be reached: it follows the generation by polling only.
private func pollingGenerationTracker(
    _ server: RunningServer, _ id: String, token: String, configuration: JobTrackerConfiguration = .generation,
    clock: TestClock = TestClock.automatic()
) throws -> JobTracker<GenerationJobKind> {
    var configuration = configuration
    configuration.headers["Authorization"] = "Bearer \(token)"
    return JobTracker<GenerationJobKind>(
        streamURL: try #require(URL(string: "http://127.0.0.1:1/progress")),
        statusURL: server.baseURL.appendingPathComponent(GenerationPaths.status(id: id)),
        configuration: configuration, clock: clock)
}

@Suite("JobTracker following generations")
struct GenerationTrackerTests {
    /// A manual clock, and generations of 10 s in ten 1 s steps.
    static func configuration() -> MockBackendConfiguration {
        var configuration = manualServerConfiguration()
        configuration.generations.duration = .seconds(10)
        return configuration
    }

    /// A quick stream backoff; the 5 s poll interval of the profile stays (it is virtual time).
    static let quick: JobTrackerConfiguration = {
        var configuration = JobTrackerConfiguration.generation
        configuration.policy = ReconnectionPolicy(initialDelay: .milliseconds(100), maxAttempts: 1, jitter: 0)
        return configuration
    }()

    /// The `completed` event has no image URL: the tracker reads the status once for it, so
    /// the outcome equals the one polling gives.
    @Test func followsAGenerationOnItsStreamWithTheSameOutcomeAsPolling() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let token = try await generationToken(server)
            let id = try await createGeneration(server, token: token)
            let tracker = JobTracker(
                generationId: id, baseURL: server.baseURL, token: token, configuration: Self.quick,
                clock: TestClock.automatic())
            let followed = Followed(tracker)
            tracker.start()
            #expect(await eventually { server.app.streams.journal.snapshots(stream: "generations/\(id)").count == 1 })
            for _ in 0..<10 { try await advance(server, ms: 1000) }
            let outcome = try await tracker.outcome
            guard case .completed(let summary) = outcome else {
                Issue.record("expected completed, got \(outcome)")
                return
            }
            #expect(summary.imageUrl?.hasPrefix("/api/generations/\(id)/image.png?signature=") == true)
            #expect(await eventually { followed.ended.current })
            let fractions = followed.events.compactMap { GenerationJobKind.progress(of: $0)?.fraction }
            #expect(fractions.first == 0.1)
            #expect(fractions.last == 1)
            #expect(followed.eventIDs == (1...followed.eventIDs.count).map(String.init))
            guard case .completed = followed.events.last else {
                Issue.record("expected completed last, got \(followed.events)")
                return
            }
            #expect(followed.statuses.map(\.status) == [.completed])

            let polled = try pollingGenerationTracker(server, id, token: token, configuration: Self.quick)
            polled.start()
            #expect(try await polled.outcome == outcome)
        }
    }

    @Test func aFailedGenerationGivesTheSameOutcomeOnTheStreamAndByPolling() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let token = try await generationToken(server)
            let streamedId = try await createGeneration(server, token: token)
            let polledId = try await createGeneration(server, token: token)
            let streamed = JobTracker(
                generationId: streamedId, baseURL: server.baseURL, token: token, configuration: Self.quick,
                clock: TestClock.automatic())
            let polled = try pollingGenerationTracker(server, polledId, token: token, configuration: Self.quick)
            streamed.start()
            polled.start()
            try await advance(server, ms: 3000)
            #expect(
                await eventually {
                    server.app.streams.journal.snapshots(stream: "generations/\(streamedId)").count == 1
                        && polled.phase == .polling
                })
            for id in [streamedId, polledId] {
                try await server.admin.generations.fail(id, message: "GPU out of memory")
            }
            let expected = JobOutcome<GenerationSummary>.failed(
                JobFailure(code: "GENERATION_FAILED", message: "GPU out of memory"))
            #expect(try await streamed.outcome == expected)
            #expect(try await polled.outcome == expected)
        }
    }

    /// The generation profile end to end on a virtual clock: five tries 1-2-4-8-8 s apart,
    /// then a status read every 5 s until the generation is final, then nothing.
    @Test func generationProfileBacksOffFiveTimesThenPollsEvery5s() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let token = try await generationToken(server)
            let id = try await createGeneration(server, token: token)
            let clock = TestClock.automatic(divisor: 200)
            let tracker = try pollingGenerationTracker(server, id, token: token, clock: clock)
            let followed = Followed(tracker)
            tracker.start()
            #expect(await eventually { followed.statuses.count >= 3 })
            try await server.admin.generations.complete(id)
            let status = try await server.request(
                "GET", "/api/generations/\(id)", headers: ["Authorization": "Bearer \(token)"])
            let imageUrl = try JSONDecoder().decode(GenerationStatus.self, from: Data(status.body)).imageUrl
            #expect(try await tracker.outcome == .completed(GenerationSummary(imageUrl: imageUrl)))
            #expect(await eventually { followed.ended.current })
            let sleeps = clock.sleeps
            #expect(Array(sleeps.prefix(5)) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
            #expect(sleeps.dropFirst(5).allSatisfy { $0 == .seconds(5) })
            #expect(sleeps.count == 5 + followed.statuses.count - 1)
        }
    }

    /// A 401 on the stream is not retried; polling meets it too and ends tracking with it.
    @Test func aBadTokenEndsTrackingWithUnauthorized() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let token = try await generationToken(server)
            let id = try await createGeneration(server, token: token)
            let clock = TestClock.automatic()
            let tracker = JobTracker(
                generationId: id, baseURL: server.baseURL, token: "not-a-session", configuration: Self.quick,
                clock: clock)
            tracker.start()
            await #expect(throws: StatusPollingError.unauthorized(status: 401)) { try await tracker.outcome }
            #expect(tracker.phase == .failed)
            #expect(clock.sleeps.isEmpty)
        }
    }
}

// MARK: - Pure

@Suite("JobTrackingStateMachine")
struct JobTrackingStateMachineTests {
    @Test func streamThenPollingThenFinished() {
        var machine = JobTrackingStateMachine(statusCheckAfterPause: .seconds(30))
        #expect(machine.handle(.start) == .openStream(segment: 1))
        #expect(machine.handle(.start) == JobTrackingStateMachine.Action.none)
        #expect(machine.handle(.streamEnded(segment: 1)) == .startPolling(segment: 2))
        #expect(machine.phase == .polling)
        #expect(machine.handle(.finished) == .halt)
        #expect(machine.phase == .finished)
        #expect(machine.handle(.cancel) == JobTrackingStateMachine.Action.none)
    }

    @Test func aLongPauseChecksTheStatusFirstAndAShortOneDoesNot() {
        var machine = JobTrackingStateMachine(statusCheckAfterPause: .seconds(30))
        _ = machine.handle(.start)
        #expect(machine.handle(.suspend) == .halt)
        // The suspended stream's end is old news.
        #expect(machine.handle(.streamEnded(segment: 1)) == JobTrackingStateMachine.Action.none)
        #expect(machine.handle(.resume(pause: .seconds(30))) == .openStream(segment: 3))
        _ = machine.handle(.suspend)
        #expect(machine.handle(.resume(pause: .seconds(31))) == .checkStatus(segment: 5))
        #expect(machine.phase == .checkingStatus)
        #expect(machine.handle(.statusUnfinished(segment: 4)) == JobTrackingStateMachine.Action.none)
        #expect(machine.handle(.statusUnfinished(segment: 5)) == .openStream(segment: 6))
        #expect(machine.phase == .streaming)
    }

    @Test func resumeWithoutSuspendAndSuspendBeforeStartDoNothing() {
        var machine = JobTrackingStateMachine(statusCheckAfterPause: .seconds(30))
        #expect(machine.handle(.suspend) == JobTrackingStateMachine.Action.none)
        #expect(machine.handle(.resume(pause: .seconds(60))) == JobTrackingStateMachine.Action.none)
        _ = machine.handle(.start)
        #expect(machine.handle(.resume(pause: .seconds(60))) == JobTrackingStateMachine.Action.none)
        #expect(machine.phase == .streaming)
    }

    @Test func finishedWhileSuspendedStaysFinished() {
        var machine = JobTrackingStateMachine(statusCheckAfterPause: .seconds(30))
        _ = machine.handle(.start)
        _ = machine.handle(.suspend)
        #expect(machine.handle(.finished) == .halt)
        #expect(machine.handle(.resume(pause: .seconds(60))) == JobTrackingStateMachine.Action.none)
        #expect(machine.phase == .finished)
    }
}

@Suite("Job wire types and kinds")
struct JobKindTests {
    @Test func progressDecodesFromEitherSpelling() throws {
        let rows = try #require(
            try ImportStreamEvent.decode(
                type: "progress",
                data: #"{"jobId":"import_1","status":"processing","progress":0.4,"processedRows":40,"totalRows":100}"#))
        let counts = try #require(
            try ImportStreamEvent.decode(
                type: "progress",
                data: #"{"jobId":"import_1","status":"processing","progress":0.4,"processedCount":40,"totalCount":100}"#
            ))
        #expect(rows == counts)
        #expect(
            rows == .progress(ImportProgressEvent(jobId: "import_1", progress: 0.4, processedRows: 40, totalRows: 100)))
        let encoded = String(
            decoding: try JSONEncoder().encode(
                ImportProgressEvent(jobId: "j", progress: 1, processedRows: 2, totalRows: 2)),
            as: UTF8.self)
        #expect(encoded.contains(#""processedCount":2"#) && encoded.contains(#""processedRows":2"#))
        #expect(try ImportStreamEvent.decode(type: "message", data: "{}") == nil)
    }

    @Test func theStreamAndTheStatusGiveTheSameCompletedOutcome() throws {
        let event = try #require(
            try ImportStreamEvent.decode(
                type: "complete",
                data: #"{"jobId":"import_1","status":"complete","totalRows":10,"successfulRows":9,"failedRows":1}"#))
        let status = ImportStatus(
            jobId: "import_1", status: .complete, progress: 1, processedRows: 10, totalRows: 10, successfulRows: 9,
            failedRows: 1)
        #expect(ImportJobKind.outcome(of: event) == ImportJobKind.outcome(of: status))
        #expect(
            ImportJobKind.outcome(of: event)
                == .completed(ImportSummary(totalRows: 10, successfulRows: 9, failedRows: 1)))
    }

    @Test func theImportStatusDecodesWhatTheServerSends() throws {
        // As the server encodes it: the same type, keys sorted.
        let body = Data(
            #"{"failedRows":1,"jobId":"import_1","processedRows":5,"progress":0.25,"status":"paused","#
                .appending(#""successfulRows":4,"totalRows":20}"#).utf8)
        let status = try JSONDecoder().decode(ImportStatus.self, from: body)
        #expect(status.status == .paused && !status.isFinished)
        #expect(status.processedRows == 5 && status.failedRows == 1)
    }
}
