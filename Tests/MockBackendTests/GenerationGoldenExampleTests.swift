import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import TestSupport
import Testing

/// The generation examples decode into the `MockBackendAPI` wire types and round-trip
/// through them, and what the server answers and streams decodes into the same types and
/// has the examples' fields with their JSON types. The client side reads the same files
/// (`MockBackendClientTests/GoldenExampleClientTests.swift`).
@Suite("Golden examples: generations")
struct GenerationGoldenExampleTests {
    @Test func examplesRoundTripThroughTheWireTypes() throws {
        let created = try GoldenExample.roundTrip(GenerationCreated.self, "generations/create-response")
        #expect(created.status == .queued && created.progress == 0)
        #expect(try GoldenExample.roundTrip(TokenBalance.self, "generations/token-balance").balance == 9)
        let status = try GoldenExample.roundTrip(GenerationStatus.self, "generations/status")
        #expect(status.status == .completed)
        #expect(status.error == nil)
        #expect(status.imageUrl?.hasPrefix("/" + GenerationPaths.image(id: status.id) + "?signature=") == true)
        let progress = try GoldenExample.roundTrip(GenerationProgressEvent.self, "generations/event-progress")
        #expect(progress.progress == 10)
        let completed = try GoldenExample.roundTrip(GenerationCompletedEvent.self, "generations/event-completed")
        #expect(completed.status == .completed && completed.message == "Done")
        let failed = try GoldenExample.roundTrip(GenerationFailedEvent.self, "generations/event-failed")
        #expect(failed.message == "GPU on fire" && failed.progress == 50)
    }

    /// The status sends its absent fields as explicit nulls, as the example has them.
    @Test func theStatusSendsExplicitNulls() throws {
        let queued = GenerationStatus(id: "gen_1", status: .queued, progress: 0, createdAt: "2026-11-22T10:15:30.123Z")
        let keys = try GoldenExample.keys(try JSONEncoder().encode(queued))
        #expect(try keys == GoldenExample.keys(GoldenExample.data("generations/status")))
    }

    @Test func whatTheServerSendsIsTheWireTypesInTheExampleShapes() async throws {
        try await withInMemoryApp(GoldenExample.configuration()) { server in
            func body(_ name: String) throws -> String { String(decoding: try GoldenExample.data(name), as: UTF8.self) }
            let login = try await server.request(
                "POST", "/" + GenerationPaths.login, body: try body("generations/login-request"))
            #expect(try GoldenExample.shape(login) == GoldenExample.shape(of: "generations/login-response"))
            let token =
                try #require(
                    try JSONSerialization.jsonObject(with: Data(login.body)) as? [String: Any])["token"] as? String
            let bearer = ["Authorization": "Bearer \(try #require(token))"]
            func create() async throws -> String {
                let created = try await server.request(
                    "POST", "/" + GenerationPaths.create, headers: bearer, body: try body("generations/create-request"))
                #expect(try GoldenExample.shape(created) == GoldenExample.shape(of: "generations/create-response"))
                return try JSONDecoder().decode(GenerationCreated.self, from: Data(created.body)).id
            }
            let id = try await create()
            let balance = try await server.request("GET", "/" + GenerationPaths.tokenBalance, headers: bearer)
            #expect(try GoldenExample.shape(balance) == GoldenExample.shape(of: "generations/token-balance"))
            #expect(try JSONDecoder().decode(TokenBalance.self, from: Data(balance.body)).balance == 9)
            let queued = try await server.request("GET", "/" + GenerationPaths.status(id: id), headers: bearer)
            #expect(
                try GoldenExample.keys(Data(queued.body))
                    == GoldenExample.keys(GoldenExample.data("generations/status")))
            try await server.admin.clock.advance(by: .seconds(60))
            let status = try await server.request("GET", "/" + GenerationPaths.status(id: id), headers: bearer)
            #expect(try GoldenExample.shape(status) == GoldenExample.shape(of: "generations/status"))
            let finished = try JSONDecoder().decode(GenerationStatus.self, from: Data(status.body))
            #expect(
                finished.isFinished
                    && finished.imageUrl?.hasPrefix("/" + GenerationPaths.image(id: id) + "?signature=") == true)
            let stream = try await server.request("GET", "/" + GenerationPaths.progress(id: id), headers: bearer)
            let events = GoldenExample.events(stream.body)
            try GoldenExample.expectEvent(GenerationProgressEvent.self, in: events, like: "generations/event-progress")
            try GoldenExample.expectEvent(
                GenerationCompletedEvent.self, in: events, like: "generations/event-completed")

            let failing = try await create()
            try await server.admin.generations.fail(failing, message: "GPU on fire")
            let failed = try await server.request("GET", "/" + GenerationPaths.progress(id: failing), headers: bearer)
            try GoldenExample.expectEvent(
                GenerationFailedEvent.self, in: GoldenExample.events(failed.body), like: "generations/event-failed")
        }
    }
}
