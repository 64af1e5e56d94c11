import Foundation
import MockBackendTesting
import TestSupport
import Testing

@Suite("AdminClient: imports, generations and workflows")
struct AdminJobAndWorkflowTests {
    static func manualClock() -> MockBackendConfiguration {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        return configuration
    }

    static let books = "title,author,year\r\n\"Dune, Part 1\",Frank Herbert,1965\r\nNo author\r\n"

    @Test func uploadsACSVAndDrivesTheImport() async throws {
        try await withInMemoryApp(Self.manualClock()) { server in
            let accepted = try await server.api.uploadCSV(Self.books)
            #expect(accepted.estimatedRows == 2)
            #expect(accepted.sseUrl == "/api/v2/imports/\(accepted.jobId)/stream")
            let imports = server.admin.imports
            #expect(try await imports.list().map(\.stream) == ["imports/\(accepted.jobId)"])
            #expect(try await imports.pause(accepted.jobId).status == .paused)
            #expect(try await imports.resume(accepted.jobId).status != .paused)
            let done = try await imports.complete(accepted.jobId)
            #expect(done.status == .complete)
            #expect(done.successfulRows == 1 && done.failedRows == 1)
            let conflict = await #expect(throws: UnexpectedResponseError.self) {
                try await imports.fail(accepted.jobId)
            }
            #expect(conflict?.code == "JOB_STATE_CONFLICT")

            let second = try await server.api.uploadCSV(Self.books, v1: true)
            let failed = try await imports.fail(second.jobId, code: "DISK_FULL", message: "No space")
            #expect(failed.status == .error)
        }
    }

    @Test func completesAndFailsGenerations() async throws {
        try await withInMemoryApp(Self.manualClock()) { server in
            let token = try await server.api.generationToken()
            let create = { () async throws -> String in
                let response = try await server.request(
                    "POST", "/api/generations", headers: ["Authorization": "Bearer \(token)"],
                    body: #"{"prompt":"a lighthouse at dusk"}"#)
                return try JSONDecoder().decode(GenerationCreated.self, from: Data(response.body)).id
            }
            let first = try await create()
            let second = try await create()
            #expect(
                try await server.admin.generations.list().map(\.prompt) == [
                    "a lighthouse at dusk", "a lighthouse at dusk",
                ])
            let completed = try await server.admin.generations.complete(first)
            #expect(completed.status == .completed)
            #expect(completed.imageUrl?.hasPrefix("/api/generations/\(first)/image.png?signature=") == true)
            let failed = try await server.admin.generations.fail(second, message: "GPU on fire")
            #expect(failed.status == .failed && failed.error == "GPU on fire")
        }
    }

    @Test func createsDrivesAndCompletesAWorkflowSession() async throws {
        try await withInMemoryApp(Self.manualClock()) { server in
            let workflows = server.admin.workflows
            let created = try await workflows.create(
                id: "demo", iterations: 2, hats: ["planner", "builder"], paceSeconds: 1)
            #expect(created.id == "demo" && created.hat == "planner" && created.iteration == 1)
            let published = try await workflows.publish(
                "demo", topic: "review.requested", payload: ["pr": .integer(42)])
            #expect(published.session == "demo" && published.topic == "review.requested")
            #expect(published.payload == ["pr": .integer(42)])
            let completed = try await workflows.complete("demo")
            #expect(completed.mode == .complete)
            let exists = await #expect(throws: UnexpectedResponseError.self) { try await workflows.create(id: "demo") }
            #expect(exists?.code == "SESSION_EXISTS")
        }
    }
}
