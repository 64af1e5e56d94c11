import Foundation
import MockBackendClient
import MockBackendTesting
import TestSupport
import Testing

/// A job tracker that fell back to polling reports a failure with the same code and message
/// as the stream's final event would have given: the status carries them.
@Suite("Failures seen by polling")
struct PolledFailureTests {
    /// A tracker whose stream cannot be reached, so it polls `statusURL` at once.
    private func pollingTracker<Kind: JobKind>(
        _ kind: Kind.Type, statusURL: URL, headers: [String: String] = [:]
    ) throws -> JobTracker<Kind> {
        var configuration = JobTrackerConfiguration.import
        configuration.policy = ReconnectionPolicy(initialDelay: .milliseconds(100), maxAttempts: 1, jitter: 0)
        configuration.headers = headers
        return JobTracker<Kind>(
            streamURL: try #require(URL(string: "http://127.0.0.1:1/stream")), statusURL: statusURL,
            configuration: configuration, clock: TestClock.automatic())
    }

    @Test func anImportFailureByPollingHasTheCodeAndMessage() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 100)
            let tracker = try pollingTracker(
                ImportJobKind.self, statusURL: server.baseURL.appendingPathComponent(ImportPaths.status(jobId: jobId)))
            tracker.start()
            #expect(await eventually { tracker.phase == .polling })
            try await server.admin.imports.fail(jobId, code: "DISK_FULL", message: "No space left.")
            #expect(try await tracker.outcome == .failed(JobFailure(code: "DISK_FULL", message: "No space left.")))
        }
    }

    @Test func aV1ImportFailureByPollingHasTheCodeAndMessage() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let jobId = try await uploadImport(server, rows: 100, path: "/api/import/csv-gemini")
            let tracker = try pollingTracker(
                ImportJobKind.self, statusURL: server.baseURL.appendingPathComponent(ImportPaths.statusV1(jobId: jobId))
            )
            tracker.start()
            #expect(await eventually { tracker.phase == .polling })
            try await server.admin.imports.fail(jobId)
            #expect(
                try await tracker.outcome
                    == .failed(JobFailure(code: "IMPORT_FAILED", message: "The import failed (admin).")))
        }
    }

    @Test func aGenerationFailureByPollingHasTheCodeAndMessage() async throws {
        try await withRunningServer(manualServerConfiguration()) { server in
            let login = try await server.request(
                "POST", "/api/auth/login", body: #"{"email":"demo@example.com","password":"demo1234"}"#)
            let token = try #require(
                (try JSONSerialization.jsonObject(with: Data(login.body)) as? [String: Any])?["token"] as? String)
            let created = try await server.request(
                "POST", "/api/generations", headers: ["Authorization": "Bearer \(token)"], body: #"{"prompt":"a cat"}"#)
            let id = try #require(
                (try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String)
            let tracker = try pollingTracker(
                GenerationJobKind.self,
                statusURL: server.baseURL.appendingPathComponent(GenerationPaths.status(id: id)),
                headers: ["Authorization": "Bearer \(token)"])
            tracker.start()
            #expect(await eventually { tracker.phase == .polling })
            try await server.admin.generations.fail(id, message: "GPU out of memory")
            #expect(
                try await tracker.outcome
                    == .failed(JobFailure(code: "GENERATION_FAILED", message: "GPU out of memory")))
        }
    }

    /// The golden examples of failed statuses give the reason on the client side too.
    @Test func theFailedExamplesGiveTheReason() throws {
        func example<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
            try JSONDecoder().decode(
                type, from: Data(contentsOf: URL(fileURLWithPath: PackageRoot.path + "/openapi/examples/\(name).json")))
        }
        let imports = try example(ImportStatus.self, "imports/status-failed")
        #expect(
            ImportJobKind.outcome(of: imports)
                == .failed(JobFailure(code: "DISK_FULL", message: "No space left on the device.")))
        let generation = try example(GenerationStatus.self, "generations/status-failed")
        #expect(
            GenerationJobKind.outcome(of: generation)
                == .failed(JobFailure(code: "GENERATION_FAILED", message: "GPU on fire")))
    }
}
