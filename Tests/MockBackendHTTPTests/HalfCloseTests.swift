import Foundation
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// A client that sends its request and its FIN together (`printf … | nc -N`, health
/// checkers, one-shot scripts) is answered and then closed at once: it does not hold a
/// descriptor and a connection slot until the idle timeout. Over real sockets, many at once.
@Suite("Requests that come with the client's FIN")
struct HalfCloseTests {
    /// Long enough that waiting it out would fail every expectation below.
    static let configuration: HTTPServerConfiguration = {
        var configuration = HTTPServerConfiguration()
        configuration.idleTimeout = .seconds(60)
        configuration.headerTimeout = .seconds(30)
        return configuration
    }()

    @Test func fiftyRequestsSentWithTheirFINAreAnsweredAndClosed() async throws {
        try await withHTTPServer(configuration: Self.configuration, responder: TestRoutes.responder()) { server in
            let clients = try (0..<50).map { _ in try RawHTTPClient(port: server.port ?? 0) }
            for client in clients {
                try client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                client.shutdownWrite()
            }
            for client in clients {
                let response = try await client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == "hello")
                #expect(await client.waitForClose(timeout: .seconds(5)) == .fin)
            }
            #expect(await eventually(timeout: .seconds(5)) { server.statistics.openConnections == 0 })
            #expect(await eventually(timeout: .seconds(5)) { server.statistics.openDescriptors == 0 })
            for client in clients { client.close() }
        }
    }

    /// A FIN before a whole head closes the connection at once, not at the header timeout.
    @Test func aPartialHeadFollowedByFINIsClosedAtOnce() async throws {
        try await withHTTPServer(configuration: Self.configuration, responder: TestRoutes.responder()) { server in
            let clients = try (0..<50).map { _ in try RawHTTPClient(port: server.port ?? 0) }
            for client in clients {
                try client.send("GET /hello HTTP/1.1\r\nHo")
                client.shutdownWrite()
            }
            for client in clients {
                #expect(await client.waitForClose(timeout: .seconds(5)) == .fin)
                #expect(client.buffer.isEmpty)
            }
            #expect(await eventually(timeout: .seconds(5)) { server.statistics.openDescriptors == 0 })
            for client in clients { client.close() }
        }
    }
}
