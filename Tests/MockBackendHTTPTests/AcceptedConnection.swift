import MockBackendSupport
import MockBackendTesting
import Testing

@testable import MockBackendHTTP

/// A client connected to a bare listening socket and the server side of that connection,
/// accepted by hand: for tests that drive one `HTTPConnection` on a loop of their own.
/// The caller closes the listener (`Platform.closeFD(listener.fileDescriptor)`).
func acceptedConnection(
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> (listener: ListeningSocket, client: RawHTTPClient, accepted: Int32) {
    let listener = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
    let client = try RawHTTPClient(port: listener.port)
    var accepted: Int32 = -1
    #expect(
        await eventually {
            accepted = Platform.accept(listener.fileDescriptor)
            return accepted >= 0
        }, sourceLocation: sourceLocation)
    return (listener, client, accepted)
}

/// Every readiness mechanism this platform has: tests that drive a connection by hand run
/// on each (`EventLoop`); a server's default is `ReadinessMechanism.platformDefault`.
let readinessMechanisms: [ReadinessMechanism] = {
    #if os(Linux)
    [.epoll, .dispatchSources]
    #else
    [.dispatchSources]
    #endif
}()
