import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import Testing

private func manualClock() -> MockBackendConfiguration {
    var configuration = MockBackendConfiguration.forTesting()
    configuration.clock = .manual
    configuration.seed = 7
    return configuration
}

/// The import examples (SPEC 4.2) decode into the wire types, and what the server sends has
/// their fields with their JSON types.
@Suite("Golden examples: imports")
struct ImportGoldenExampleTests {
    @Test func examplesDecode() throws {
        let status = try GoldenExample.decode(ImportStatus.self, "imports/status")
        #expect(status.status == .complete)
        #expect(status.successfulRows + status.failedRows == status.totalRows)
        #expect(try GoldenExample.decode(ImportStartedEvent.self, "imports/event-started").totalRows == 2)
        let progress = try GoldenExample.decode(ImportProgressEvent.self, "imports/event-progress")
        #expect(progress.processedRows == 1)
        let complete = try GoldenExample.decode(ImportCompleteEvent.self, "imports/event-complete")
        #expect(complete.failedRows == 1)
        #expect(try GoldenExample.decode(ImportErrorEvent.self, "imports/event-error").code == "DISK_FULL")
    }

    @Test func whatTheServerSendsHasTheExampleShapes() async throws {
        try await withRunningServer(manualClock()) { server in
            let accepted = try await upload(
                server, "title,author,year\r\n\"Dune, Part 1\",Frank Herbert,1965\r\nNo author\r\n")
            #expect(try GoldenExample.shape(accepted) == GoldenExample.shape(of: "imports/accepted"))
            let jobId =
                try #require(try JSONSerialization.jsonObject(with: Data(accepted.body)) as? [String: Any])[
                    "jobId"] as? String
            _ = try await server.request("POST", "/__admin/clock/advance", body: #"{"ms": 60000}"#)
            let status = try await server.request("GET", "/api/v2/imports/\(try #require(jobId))")
            #expect(try GoldenExample.shape(status) == GoldenExample.shape(of: "imports/status"))
            let stream = try await server.request("GET", "/api/v2/imports/\(try #require(jobId))/stream")
            let events = GoldenExample.events(stream.body)
            for type in ["started", "progress", "complete"] {
                let data = try #require(events[type]?.first, "no \(type) event")
                #expect(try GoldenExample.shape(data) == GoldenExample.shape(of: "imports/event-\(type)"))
            }

            let failing = try await upload(server, "title\r\nA\r\n")
            let failingId =
                try #require(
                    try JSONSerialization.jsonObject(with: Data(failing.body)) as? [String: Any])["jobId"] as? String
            _ = try await server.request(
                "POST", "/__admin/imports/\(try #require(failingId))/fail",
                body: #"{"code": "DISK_FULL", "message": "No space left on the device."}"#)
            let failed = try await server.request("GET", "/api/v2/imports/\(try #require(failingId))/stream")
            let error = try #require(GoldenExample.events(failed.body)["error"]?.first)
            #expect(try GoldenExample.shape(error) == GoldenExample.shape(of: "imports/event-error"))
        }
    }
}

/// The generation examples (SPEC 4.3) decode into the wire types, and what the server
/// sends has their fields with their JSON types.
@Suite("Golden examples: generations")
struct GenerationGoldenExampleTests {
    @Test func examplesDecode() throws {
        let status = try GoldenExample.decode(GenerationStatus.self, "generations/status")
        #expect(status.status == .completed)
        #expect(status.error == nil)
        let progress = try GoldenExample.decode(GenerationProgressEvent.self, "generations/event-progress")
        #expect(progress.progress == 10)
        let completed = try GoldenExample.decode(GenerationCompletedEvent.self, "generations/event-completed")
        #expect(completed.status == .completed)
        let failed = try GoldenExample.decode(GenerationFailedEvent.self, "generations/event-failed")
        #expect(failed.message == "GPU on fire")
    }

    @Test func whatTheServerSendsHasTheExampleShapes() async throws {
        try await withRunningServer(manualClock()) { server in
            func body(_ name: String) throws -> String { String(decoding: try GoldenExample.data(name), as: UTF8.self) }
            let login = try await server.request("POST", "/api/auth/login", body: try body("generations/login-request"))
            #expect(try GoldenExample.shape(login) == GoldenExample.shape(of: "generations/login-response"))
            let token =
                try #require(
                    try JSONSerialization.jsonObject(with: Data(login.body)) as? [String: Any])["token"] as? String
            let bearer = ["Authorization": "Bearer \(try #require(token))"]
            func create() async throws -> String {
                let created = try await server.request(
                    "POST", "/api/generations", headers: bearer, body: try body("generations/create-request"))
                #expect(try GoldenExample.shape(created) == GoldenExample.shape(of: "generations/create-response"))
                let object = try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any]
                return try #require(object?["id"] as? String)
            }
            let id = try await create()
            let balance = try await server.request("GET", "/api/tokens/balance", headers: bearer)
            #expect(try GoldenExample.shape(balance) == GoldenExample.shape(of: "generations/token-balance"))
            _ = try await server.request("POST", "/__admin/clock/advance", body: #"{"ms": 60000}"#)
            let status = try await server.request("GET", "/api/generations/\(id)", headers: bearer)
            #expect(try GoldenExample.shape(status) == GoldenExample.shape(of: "generations/status"))
            let stream = try await server.request("GET", "/api/generations/\(id)/progress", headers: bearer)
            let events = GoldenExample.events(stream.body)
            for type in ["progress", "completed"] {
                let data = try #require(events[type]?.first, "no \(type) event")
                #expect(try GoldenExample.shape(data) == GoldenExample.shape(of: "generations/event-\(type)"))
            }

            let failing = try await create()
            _ = try await server.request(
                "POST", "/__admin/generations/\(failing)/fail", body: #"{"message": "GPU on fire"}"#)
            let failed = try await server.request("GET", "/api/generations/\(failing)/progress", headers: bearer)
            let data = try #require(GoldenExample.events(failed.body)["failed"]?.first)
            #expect(try GoldenExample.shape(data) == GoldenExample.shape(of: "generations/event-failed"))
        }
    }
}
