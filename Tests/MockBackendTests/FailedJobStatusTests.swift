import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// A failed job says why in every poll snapshot, V1 and V2, with the code and message of
/// the stream's final event, so a client that fell back to polling can show the reason.
@Suite("Failed jobs in poll snapshots")
struct FailedJobStatusTests {
    @Test func aFailedImportHasTheErrorEventsCodeAndMessageInBothStatuses() throws {
        let app = try InMemoryApp.manual()
        let job = try app.uploadCSV(rows: 500)
        let stream = try #require(app.answer("GET", "/" + ImportPaths.stream(jobId: job)).stream)
        app.advance(by: .seconds(2))
        let failed = app.answer(
            "POST", "/__admin/imports/\(job)/fail", body: #"{"code":"DISK_FULL","message":"No space left."}"#)
        #expect(failed.status == 200)
        app.run()

        let last = try #require(stream.events.last)
        #expect(last.type == ImportEventType.error)
        let event = try JSONDecoder().decode(ImportErrorEvent.self, from: Data(last.data.utf8))
        #expect(event.code == "DISK_FULL" && event.message == "No space left.")
        for target in ["/api/v2/imports/\(job)", "/v1/jobs/\(job)/status"] {
            let status = try app.answer("GET", target).object()
            #expect(status["status"] == .string("error"), "\(target)")
            #expect(status["errorCode"] == .string(event.code), "\(target)")
            #expect(status["errorMessage"] == .string(event.message), "\(target)")
        }
        let admin = try JSONDecoder().decode(
            [[String: JSONValue]].self, from: Data(app.answer("GET", "/__admin/imports").body))
        #expect(admin.first?["errorCode"] == .string("DISK_FULL"))
    }

    /// The admin's defaults are what the stream and the status say.
    @Test func aFailureWithoutACodeGetsTheDefaultInBoth() throws {
        let app = try InMemoryApp.manual()
        let job = try app.uploadCSV(rows: 500)
        _ = app.answer("POST", "/__admin/imports/\(job)/fail")
        let status = try app.answer("GET", "/api/v2/imports/\(job)").object()
        #expect(status["errorCode"] == .string("IMPORT_FAILED"))
        #expect(status["errorMessage"] == .string("The import failed (admin)."))
    }

    /// A job that did not fail sends neither field, as the schema says.
    @Test func otherStatusesHaveNoErrorFields() throws {
        let app = try InMemoryApp.manual()
        let job = try app.uploadCSV(rows: 3)
        let queued = app.answer("GET", "/api/v2/imports/\(job)")
        #expect(try queued.object()["errorCode"] == nil)
        _ = app.answer("POST", "/__admin/imports/\(job)/complete")
        let complete = app.answer("GET", "/v1/jobs/\(job)/status")
        #expect(try complete.object()["errorCode"] == nil)
        #expect(try complete.object()["errorMessage"] == nil)
    }

    @Test func aFailedGenerationHasTheFailedEventsCodeAndMessageInItsStatus() throws {
        let app = try InMemoryApp.manual()
        let token = try app.generationToken()
        let id = try app.createGeneration(token: token)
        let bearer = ["Authorization": "Bearer \(token)"]
        let stream = try #require(app.answer("GET", "/" + GenerationPaths.progress(id: id), headers: bearer).stream)
        _ = app.answer(
            "POST", "/__admin/generations/\(id)/fail", body: #"{"code":"GPU_OOM","message":"GPU out of memory"}"#)
        app.run()

        let last = try #require(stream.events.last)
        #expect(last.type == GenerationEventType.failed)
        let event = try JSONDecoder().decode(GenerationFailedEvent.self, from: Data(last.data.utf8))
        #expect(event.code == "GPU_OOM")
        let status = try app.answer("GET", "/" + GenerationPaths.status(id: id), headers: bearer).object()
        #expect(status["errorCode"] == event.code.map(JSONValue.string))
        #expect(status["errorMessage"] == event.message.map(JSONValue.string))
        #expect(status["error"] == event.message.map(JSONValue.string))

        let other = try app.createGeneration(token: token)
        _ = app.answer("POST", "/__admin/generations/\(other)/fail")
        let defaulted = try app.answer("GET", "/" + GenerationPaths.status(id: other), headers: bearer).object()
        #expect(defaulted["errorCode"] == .string("GENERATION_FAILED"))
        #expect(defaulted["errorMessage"] == .string("The generation failed (admin)."))
    }

    /// The golden examples of failed snapshots decode with their reasons, and the server's
    /// failed snapshots have the examples' keys.
    @Test func theFailedExamplesCarryTheReason() throws {
        #expect(try GoldenExample.roundTrip(ImportStatus.self, "imports/status-failed").isFailed)
        #expect(try GoldenExample.roundTrip(GenerationStatus.self, "generations/status-failed").isFailed)

        let app = try InMemoryApp.manual()
        let job = try app.uploadCSV(rows: 500)
        app.advance(by: .seconds(1))
        _ = app.answer("POST", "/__admin/imports/\(job)/fail")
        let served = app.answer("GET", "/api/v2/imports/\(job)")
        #expect(
            try GoldenExample.keys(Data(served.body)) == GoldenExample.keys(GoldenExample.data("imports/status-failed"))
        )
    }
}
