import Foundation
import MockBackend
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// `POST /__admin/streams/{stream}/disconnect` in its three modes.
@Suite("Admin disconnect: broken, reset, graceful")
struct AdminDisconnectTests {
    private func open(_ server: RunningServer, _ name: String) async throws -> RawHTTPClient {
        let client = try server.connect()
        try client.send("GET /sse/channels/\(name) HTTP/1.1\r\nHost: t\r\n\r\n")
        try await client.receive(untilContains: "\r\n\r\n")
        #expect(await eventually { server.app.streams.existingStream(named: "channels/\(name)")?.subscriberCount == 1 })
        server.app.streams.stream(named: "channels/\(name)").publish(ServerSentEvent(data: "before"))
        try await client.receive(untilContains: "data: before")
        return client
    }

    @Test func gracefulEndsTheBodyAndKeepsTheConnection() async throws {
        try await withRunningServer { server in
            let client = try await open(server, "polite")
            let response = try await server.request(
                "POST", "/__admin/streams/channels/polite/disconnect", body: #"{"graceful":true}"#)
            #expect(response.text == #"{"disconnected":1,"stream":"channels/polite"}"#)
            try await client.receive(untilContains: "\r\n0\r\n\r\n")
            #expect(String(decoding: client.buffer, as: UTF8.self).hasSuffix("\r\n0\r\n\r\n"))
            // The response ended properly: the connection takes the next request.
            #expect(try await client.get("/health").status == 200)
            let records = server.app.streams.journal.snapshots(stream: "channels/polite")
            #expect(records.count == 1)
            #expect(records.first?.endReason == "admin", "\(records)")
        }
    }

    @Test(arguments: [false, true])
    func theDefaultBreaksTheBody(reset: Bool) async throws {
        try await withRunningServer { server in
            let client = try await open(server, "broken")
            _ = try await server.request(
                "POST", "/__admin/streams/channels/broken/disconnect", body: reset ? #"{"reset":true}"# : "{}")
            #expect(await client.waitForClose() == (reset ? .reset : .fin))
            #expect(!String(decoding: client.buffer, as: UTF8.self).contains("\r\n0\r\n\r\n"))
        }
    }

    @Test func refusesGracefulWithReset() async throws {
        try await withRunningServer { server in
            let client = try await open(server, "both")
            let response = try await server.request(
                "POST", "/__admin/streams/channels/both/disconnect", body: #"{"graceful":true,"reset":true}"#)
            #expect(response.status == 400)
            #expect(response.text.contains("'graceful'"))
            #expect(server.app.streams.stream(named: "channels/both").subscriberCount == 1)
            #expect(await client.waitForClose(timeout: .milliseconds(100)) == .stillOpen)
        }
    }
}
