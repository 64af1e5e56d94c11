import Dispatch
import Logging
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

@testable import MockBackendHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The answers a WebSocket response gets when the connection cannot switch: not made for
/// the request it answers, or the server stopping.
@Suite("WebSocket upgrades the connection refuses")
struct WebSocketUpgradeRefusalTests {
    /// A response with a WebSocket body that answers a request that did not ask for one
    /// (a handler's mistake the factory cannot make) is refused with 500.
    @Test func aWebSocketBodyForARequestThatDidNotAskIsA500() async throws {
        var router = Router()
        router.get("/wrong") { _ in
            HTTPResponse(status: 101, body: .webSocket(WebSocketUpgrade(accept: "x", onOpen: { _ in })))
        }
        let responder = RoutingResponder(router: router, logger: .init(label: "test"))
        try await withHTTPServer(responder: responder) { server in
            let client = try RawHTTPClient(server)
            let response = try await client.get("/wrong")
            #expect(response.status == 500)
            #expect(response.text.contains("WEBSOCKET_UPGRADE_UNAVAILABLE"))
            #expect(await client.waitForClose() == .fin)
        }
    }

    /// An upgrade request that reaches an idle connection just as the server stops is
    /// answered (RFC 9112 §9.6), with 503 instead of a switch. The request is sent from
    /// inside the block that begins the shutdown, as in `ShutdownTests`.
    @Test(arguments: readinessMechanisms)
    func anUpgradeArrivingAsShutdownBeginsIs503(mechanism: ReadinessMechanism) async throws {
        let (listener, client, accepted) = try await acceptedConnection()
        defer { _ = Platform.closeFD(listener.fileDescriptor) }
        let loop = EventLoop(label: "test.loop", mechanism: mechanism)
        defer { loop.stop() }
        let registry = WebSocketRegistry()
        let context = ConnectionContext(
            configuration: HTTPServerConfiguration(), responder: WebSocketTestRoutes.responder(registry),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            statistics: LockedValue(ServerStatistics()), onClosed: { _ in })
        let connection = HTTPConnection(
            id: 1, stream: TCPByteStream(fileDescriptor: accepted), context: context, eventLoop: loop)
        connection.start()
        #expect(try await client.get("/hello").text == "hello")
        let clientFD = client.fileDescriptor
        loop.queue.async {
            let request = Array(RawWebSocketClient.upgradeRequest(path: "/echo").utf8)
            let sent = request.withUnsafeBytes { send(clientFD, $0.baseAddress, $0.count, 0) }
            precondition(sent == request.count)
            connection.beginShutdown()
        }
        let response = try await client.readResponse()
        #expect(response.status == 503)
        #expect(response.text.contains("SERVER_STOPPING"))
        #expect(response.headers["Connection"] == "close")
        #expect(await client.waitForClose() == .fin)
        #expect(registry.writers.current.isEmpty)
        // Also keeps the connection alive until here: its sources hold it only weakly.
        client.close()
        #expect(await eventually { loop.queue.sync { connection.machine.phase } == .closed })
    }
}
