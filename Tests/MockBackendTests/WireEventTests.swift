import Foundation
import MockBackendAPI
import MockBackendHTTP
import ServerSentEvents
import TestSupport
import Testing

@testable import MockBackend

/// Every event the backends publish goes out through `EventStream.publish(_: some WireEvent)`:
/// under the `event:` name its type gives, with the JSON the server writes for every body.
@Suite("Wire events")
struct WireEventTests {
    static let events: [(event: any WireEvent, type: String?)] = [
        (ImportStartedEvent(jobId: "import_1", totalRows: 2), "started"),
        (ImportProgressEvent(jobId: "import_1", progress: 0.5, processedRows: 1, totalRows: 2), "progress"),
        (ImportCompleteEvent(jobId: "import_1", totalRows: 2, successfulRows: 1, failedRows: 1), "complete"),
        (ImportErrorEvent(jobId: "import_1", code: "DISK_FULL", message: "No space."), "error"),
        (
            GenerationProgressEvent(generationId: "gen_1", status: .processing, progress: 10, message: "Composing"),
            "progress"
        ),
        (GenerationCompletedEvent(generationId: "gen_1", message: "Done"), "completed"),
        (GenerationFailedEvent(generationId: "gen_1", message: "GPU on fire", progress: 50), "failed"),
        (WorkflowEvent(topic: "note", ts: 1, payload: [:]), "workflow"),
        (
            UserInfoEnvelope(
                type: UserInfoMessageType.sessionTerminated,
                body: SessionTerminatedBody(userId: "7000001", sessionId: "s", reason: "Logged out elsewhere")),
            nil
        ),
    ]

    @Test func eachTypeNamesItsEventAndIsEncodedAsEveryBody() throws {
        for (event, type) in Self.events {
            let frame = ServerSentEvent(event)
            #expect(frame.type == type, "\(event)")
            #expect(frame.data == String(decoding: try JSONCoding.encoder.encode(event), as: UTF8.self))
        }
    }

    @Test func publishLogsTheFrameWithItsId() throws {
        let stream = EventStreamRegistry().stream(named: "channels/wire")
        for (index, (event, type)) in Self.events.enumerated() {
            let logged = stream.publish(event)
            var parser = SSEParser()
            let frames = parser.feed(logged.bytes).compactMap { item -> ServerSentEvent? in
                if case .event(let frame) = item { frame } else { nil }
            }
            #expect(frames == [ServerSentEvent(type: type, data: ServerSentEvent(event).data, id: "\(index + 1)")])
        }
    }

    /// The frames carry what clients in the field read: both spellings of the import counts,
    /// a generation's progress as a whole number, keys sorted as in every body.
    @Test func framesKeepTheirWireForm() {
        #expect(
            ServerSentEvent(ImportProgressEvent(jobId: "import_1", progress: 0.5, processedRows: 1, totalRows: 2)).data
                == #"{"jobId":"import_1","processedCount":1,"processedRows":1,"progress":0.5,"status":"processing","totalCount":2,"totalRows":2}"#
        )
        #expect(
            ServerSentEvent(GenerationCompletedEvent(generationId: "gen_1", message: "Done")).data
                == #"{"generationId":"gen_1","message":"Done","progress":100,"status":"completed"}"#)
        #expect(
            ServerSentEvent(GenerationFailedEvent(generationId: "gen_1", message: "GPU on fire", progress: 50)).data
                == #"{"generationId":"gen_1","message":"GPU on fire","progress":50,"status":"failed"}"#)
        #expect(
            ServerSentEvent(
                WorkflowEvent(
                    topic: "hat.changed", ts: 1_795_341_610_000, payload: ["from": .string("a"), "to": .string("b")])
            ).data
                == #"{"payload":{"from":"a","to":"b"},"topic":"hat.changed","ts":1795341610000}"#)
    }
}
