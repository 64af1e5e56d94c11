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

@Suite("Shutdown answers what already arrived")
struct ShutdownTests {
    /// RFC 9112 §9.6: a request that reached an idle connection just before the server
    /// stops is answered, with `Connection: close`, and then the connection ends with FIN.
    /// The request is sent from inside the block that begins the shutdown, so it is in
    /// the socket but its read event can only run after the shutdown began. Fails if the
    /// shutdown closes without looking for input: the client then gets FIN and no response.
    @Test(arguments: readinessMechanisms)
    func requestArrivingAsShutdownBeginsIsAnsweredWithConnectionClose(mechanism: ReadinessMechanism) async throws {
        let (listener, client, accepted) = try await acceptedConnection()
        defer { _ = Platform.closeFD(listener.fileDescriptor) }
        let loop = EventLoop(label: "test.loop", mechanism: mechanism)
        defer { loop.stop() }
        let closed = LockedValue(false)
        let context = ConnectionContext(
            configuration: HTTPServerConfiguration(), responder: TestRoutes.responder(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            statistics: LockedValue(ServerStatistics()), onClosed: { _ in closed.withLock { $0 = true } })
        let connection = HTTPConnection(
            id: 1, stream: TCPByteStream(fileDescriptor: accepted), context: context, eventLoop: loop)
        connection.start()
        let first = try await client.get("/hello")
        #expect(first.headers["Connection"] == nil)

        let clientFD = client.fileDescriptor
        loop.queue.async {
            let request = Array("GET /items/7 HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
            let sent = request.withUnsafeBytes { send(clientFD, $0.baseAddress, $0.count, 0) }
            precondition(sent == request.count)
            connection.beginShutdown()
        }
        let response = try await client.readResponse()
        #expect(response.text == "item 7")
        #expect(response.headers["Connection"] == "close")
        #expect(await client.waitForClose() == .fin)
        #expect(await eventually { closed.current })
        // Also keeps the connection alive until here: its sources hold it only weakly.
        #expect(loop.queue.sync { connection.machine.phase } == .closed)
    }
}
