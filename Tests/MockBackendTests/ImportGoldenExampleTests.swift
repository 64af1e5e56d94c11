import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import TestSupport
import Testing

/// The import examples decode into the `MockBackendAPI` wire types and round-trip through
/// them, and what the server answers and streams decodes into the same types and has the
/// examples' fields with their JSON types. The client side reads the same files
/// (`MockBackendClientTests/GoldenExampleClientTests.swift`).
@Suite("Golden examples: imports")
struct ImportGoldenExampleTests {
    @Test func examplesRoundTripThroughTheWireTypes() throws {
        let accepted = try GoldenExample.roundTrip(ImportAccepted.self, "imports/accepted")
        #expect(accepted.status == .queued)
        #expect(accepted.sseUrl == "/" + ImportPaths.stream(jobId: accepted.jobId))
        let status = try GoldenExample.roundTrip(ImportStatus.self, "imports/status")
        #expect(status.status == .complete)
        #expect(status.successfulRows + status.failedRows == status.totalRows)
        #expect(try GoldenExample.roundTrip(ImportStartedEvent.self, "imports/event-started").totalRows == 2)
        let progress = try GoldenExample.roundTrip(ImportProgressEvent.self, "imports/event-progress")
        #expect(progress.processedRows == 1)
        let complete = try GoldenExample.roundTrip(ImportCompleteEvent.self, "imports/event-complete")
        #expect(complete.failedRows == 1)
        #expect(try GoldenExample.roundTrip(ImportErrorEvent.self, "imports/event-error").code == "DISK_FULL")
    }

    @Test func whatTheServerSendsIsTheWireTypesInTheExampleShapes() async throws {
        try await withInMemoryApp(GoldenExample.configuration()) { server in
            let response = try await upload(
                server, "title,author,year\r\n\"Dune, Part 1\",Frank Herbert,1965\r\nNo author\r\n")
            #expect(try GoldenExample.shape(response) == GoldenExample.shape(of: "imports/accepted"))
            let accepted = try JSONDecoder().decode(ImportAccepted.self, from: Data(response.body))
            #expect(accepted.sseUrl == "/" + ImportPaths.stream(jobId: accepted.jobId))
            try await server.admin.clock.advance(by: .seconds(60))
            for path in [ImportPaths.status(jobId: accepted.jobId), ImportPaths.statusV1(jobId: accepted.jobId)] {
                let status = try await server.request("GET", "/" + path)
                #expect(try GoldenExample.shape(status) == GoldenExample.shape(of: "imports/status"), "\(path)")
                #expect(try JSONDecoder().decode(ImportStatus.self, from: Data(status.body)).status == .complete)
            }
            let stream = try await server.request("GET", accepted.sseUrl)
            let events = GoldenExample.events(stream.body)
            try GoldenExample.expectEvent(ImportStartedEvent.self, in: events, like: "imports/event-started")
            try GoldenExample.expectEvent(ImportProgressEvent.self, in: events, like: "imports/event-progress")
            try GoldenExample.expectEvent(ImportCompleteEvent.self, in: events, like: "imports/event-complete")

            let failing = try JSONDecoder().decode(
                ImportAccepted.self, from: Data(try await upload(server, "title\r\nA\r\n").body))
            try await server.admin.imports.fail(
                failing.jobId, code: "DISK_FULL", message: "No space left on the device.")
            let failed = try await server.request("GET", failing.sseUrl)
            try GoldenExample.expectEvent(
                ImportErrorEvent.self, in: GoldenExample.events(failed.body), like: "imports/event-error")
        }
    }
}
