import Foundation
import MockBackendAPI
import MockBackendClient
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// The golden examples in openapi/examples/, read as the client reads what the server
/// sends: the same `MockBackendAPI` types the server answers and publishes with (its side:
/// `MockBackendTests/*GoldenExampleTests.swift`), decoded through the job kinds where the
/// client has one.
private enum ClientExample {
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: PackageRoot.path + "/openapi/examples/\(name).json"))
    }

    /// The example as the data of an event of the type's `event:` name.
    static func event<Event: WireEvent>(_ type: Event.Type, _ name: String) throws -> ServerSentEvent {
        ServerSentEvent(type: Event.eventType, data: String(decoding: try data(name), as: UTF8.self))
    }

    /// Decodes the example, and checks that the type holds all of it: encoded again, it is
    /// the example's JSON (key order aside).
    @discardableResult
    static func roundTrip<T: Codable & Equatable>(
        _ type: T.Type, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> T {
        let example = try data(name)
        let value = try JSONDecoder().decode(type, from: example)
        let again = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(
            again == (try JSONDecoder().decode(JSONValue.self, from: example)), "\(name)",
            sourceLocation: sourceLocation)
        return value
    }
}

@Suite("Golden examples, client side: imports")
struct ImportGoldenExampleClientTests {
    @Test func theStreamExamplesDecodeThroughTheImportKind() throws {
        let started = try ClientExample.roundTrip(ImportStartedEvent.self, "imports/event-started")
        let progress = try ClientExample.roundTrip(ImportProgressEvent.self, "imports/event-progress")
        let complete = try ClientExample.roundTrip(ImportCompleteEvent.self, "imports/event-complete")
        let error = try ClientExample.roundTrip(ImportErrorEvent.self, "imports/event-error")
        #expect(
            try ImportJobKind.event(from: ClientExample.event(ImportStartedEvent.self, "imports/event-started"))
                == .started(started))
        let progressEvent = try #require(
            try ImportJobKind.event(from: ClientExample.event(ImportProgressEvent.self, "imports/event-progress")))
        #expect(progressEvent == .progress(progress))
        #expect(
            ImportJobKind.progress(of: progressEvent)
                == JobProgress(status: "processing", fraction: 0.5, completedUnits: 1, totalUnits: 2))
        let completeEvent = try #require(
            try ImportJobKind.event(from: ClientExample.event(ImportCompleteEvent.self, "imports/event-complete")))
        #expect(completeEvent == .complete(complete))
        let errorEvent = try #require(
            try ImportJobKind.event(from: ClientExample.event(ImportErrorEvent.self, "imports/event-error")))
        #expect(errorEvent == .error(error))
        #expect(ImportJobKind.outcome(of: errorEvent) == .failed(JobFailure(code: "DISK_FULL", message: error.message)))
    }

    /// The status example and the `complete` example tell the same end of one job: both
    /// paths give the tracker the same outcome.
    @Test func theStatusAndTheCompleteEventGiveOneOutcome() throws {
        let status = try ClientExample.roundTrip(ImportStatus.self, "imports/status")
        #expect(status.isFinished && !status.isFailed)
        let complete = try #require(
            try ImportJobKind.event(from: ClientExample.event(ImportCompleteEvent.self, "imports/event-complete")))
        #expect(ImportJobKind.outcome(of: complete) == ImportJobKind.outcome(of: status))
        #expect(
            ImportJobKind.outcome(of: status)
                == .completed(ImportSummary(totalRows: 2, successfulRows: 1, failedRows: 1)))
    }

    /// A V1 socket message is the V2 event's data with its name as `type`: it decodes, as
    /// the tracker decodes it, to the event the V2 example decodes to.
    @Test func theV1MessagesDecodeToTheV2Events() throws {
        for (v1, v2, type) in [
            ("imports/v1-message-progress", "imports/event-progress", ImportEventType.progress),
            ("imports/v1-message-error", "imports/event-error", ImportEventType.error),
        ] {
            let message = String(decoding: try ClientExample.data(v1), as: UTF8.self)
            let event = try #require(try ImportJobKind.event(fromMessage: message))
            #expect(try ImportStreamEvent.decode(v1Message: message) == event)
            #expect(
                try ImportStreamEvent.decode(
                    type: type, data: String(decoding: try ClientExample.data(v2), as: UTF8.self)) == event)
            var fields = try JSONDecoder().decode([String: JSONValue].self, from: try ClientExample.data(v1))
            #expect(fields.removeValue(forKey: "type") == .string(type))
            #expect(fields == (try JSONDecoder().decode([String: JSONValue].self, from: try ClientExample.data(v2))))
        }
        let error = try #require(
            try ImportJobKind.event(
                fromMessage: String(decoding: try ClientExample.data("imports/v1-message-error"), as: UTF8.self)))
        #expect(
            ImportJobKind.outcome(of: error)
                == .failed(JobFailure(code: "DISK_FULL", message: "No space left on the device.")))
        // A type the client does not know is skipped; a known one with missing fields is refused.
        #expect(try ImportStreamEvent.decode(v1Message: #"{"type":"note","text":"hi"}"#) == nil)
        #expect(throws: DecodingError.self) {
            try ImportStreamEvent.decode(v1Message: #"{"type":"progress","jobId":"j"}"#)
        }
        #expect(throws: DecodingError.self) { try ImportStreamEvent.decode(v1Message: #"{"jobId":"j"}"#) }
    }

    @Test func theUploadAnswerNamesTheStream() throws {
        let accepted = try ClientExample.roundTrip(ImportAccepted.self, "imports/accepted")
        #expect(accepted.status == .queued)
        #expect(accepted.sseUrl == "/" + ImportPaths.stream(jobId: accepted.jobId))
    }
}

@Suite("Golden examples, client side: generations")
struct GenerationGoldenExampleClientTests {
    @Test func theStreamExamplesDecodeThroughTheGenerationKind() throws {
        let progress = try ClientExample.roundTrip(GenerationProgressEvent.self, "generations/event-progress")
        let completed = try ClientExample.roundTrip(GenerationCompletedEvent.self, "generations/event-completed")
        let failed = try ClientExample.roundTrip(GenerationFailedEvent.self, "generations/event-failed")
        let progressEvent = try #require(
            try GenerationJobKind.event(
                from: ClientExample.event(GenerationProgressEvent.self, "generations/event-progress")))
        #expect(progressEvent == .progress(progress))
        #expect(
            GenerationJobKind.progress(of: progressEvent)
                == JobProgress(status: "processing", fraction: 0.1, message: "Composing"))
        let completedEvent = try #require(
            try GenerationJobKind.event(
                from: ClientExample.event(GenerationCompletedEvent.self, "generations/event-completed")))
        #expect(completedEvent == .completed(completed))
        // The event has no image URL: the tracker reads the status for it.
        #expect(GenerationJobKind.outcomeNeedsStatus(completedEvent))
        let failedEvent = try #require(
            try GenerationJobKind.event(
                from: ClientExample.event(GenerationFailedEvent.self, "generations/event-failed")))
        #expect(failedEvent == .failed(failed))
        #expect(
            GenerationJobKind.outcome(of: failedEvent)
                == .failed(JobFailure(code: "GENERATION_FAILED", message: "GPU on fire")))
    }

    @Test func theStatusHasTheImageAndExplicitNulls() throws {
        let status = try ClientExample.roundTrip(GenerationStatus.self, "generations/status")
        #expect(GenerationJobKind.outcome(of: status) == .completed(GenerationSummary(imageUrl: status.imageUrl)))
        #expect(status.imageUrl?.hasPrefix("/" + GenerationPaths.image(id: status.id) + "?signature=") == true)
        let encoded = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(status))
        #expect(encoded["error"] == .null)
    }

    @Test func theCreateAnswerAndTheBalanceDecode() throws {
        let created = try ClientExample.roundTrip(GenerationCreated.self, "generations/create-response")
        #expect(created.id.hasPrefix("gen_") && created.status == .queued)
        #expect(try ClientExample.roundTrip(TokenBalance.self, "generations/token-balance").balance == 9)
    }
}

@Suite("Golden examples, client side: workflows")
struct WorkflowGoldenExampleClientTests {
    @Test func everyTopicExampleDecodesToItsTypedPayload() throws {
        let expected: [String: WorkflowPayload] = [
            WorkflowTopic.iterationStarted: .iteration(WorkflowIteration(iteration: 1, hat: "planner")),
            WorkflowTopic.toolCalled: .toolCall(WorkflowToolCall(iteration: 1, hat: "planner", tool: "read_file")),
            WorkflowTopic.hatChanged: .hatChange(WorkflowHatChange(from: "planner", to: "builder")),
            WorkflowTopic.sessionPaused: .iteration(WorkflowIteration(iteration: 2, hat: "builder")),
            WorkflowTopic.sessionResumed: .iteration(WorkflowIteration(iteration: 2, hat: "builder")),
            WorkflowTopic.sessionSteered: .steering(
                WorkflowSteering(message: "Focus on the failing test first.", iteration: 2, hat: "builder")),
            WorkflowTopic.loopCompleted: .loopCompletion(
                WorkflowLoopCompletion(iterations: 12, reason: "max_iterations")),
        ]
        #expect(Set(expected.keys) == Set(WorkflowTopic.all))
        for topic in WorkflowTopic.all {
            let name = "workflows/event-" + topic.replacingOccurrences(of: ".", with: "-")
            let event = try ClientExample.roundTrip(WorkflowEvent.self, name)
            #expect(event.topic == topic)
            #expect(try event.typedPayload() == expected[topic], "\(topic)")
        }
        let other = WorkflowEvent(topic: "review.requested", ts: 1, payload: ["pr": .integer(7)])
        #expect(try other.typedPayload() == .other(["pr": .integer(7)]))
    }

    /// A client that gates on `mode` must read the status: the list has none, and a list
    /// item does not decode as a status.
    @Test func theListHasNoModeTheStatusHasOne() throws {
        let list = try ClientExample.data("workflows/sessions")
        let sessions = try ClientExample.roundTrip([WorkflowSummary].self, "workflows/sessions")
        #expect(sessions.map(\.startedAt) == ["2026-11-22T10:00:00.000Z"])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([WorkflowStatus].self, from: list) }
        let items = try JSONDecoder().decode([[String: JSONValue]].self, from: list)
        #expect(items.allSatisfy { $0["mode"] == nil })
        let status = try ClientExample.roundTrip(WorkflowStatus.self, "workflows/status")
        #expect(status.mode == .live && status.elapsedSecs == 12.5)
    }
}
