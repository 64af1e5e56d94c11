#if canImport(CNghttp2)
import Dispatch
import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendSupport
import MockBackendTesting

/// The app reached over HTTP/2: h2 on its TLS listener, or h2c with prior knowledge on its
/// plain one. Requests and streams share one connection, as browsers and URLSession share
/// one per origin; a stream closed by the test ends with RST_STREAM CANCEL and leaves the
/// connection to the others. A connection the server ended (a GOAWAY, a reset) is replaced
/// by a new one for the next request, as a client library would. Admin calls (`admin`,
/// `api`) stay on HTTP/1.1: they set a test up, the requests under test go over h2.
public final class HTTP2App: AppUnderTest, Sendable {
    public let server: RunningServer
    /// Whether this is h2 over TLS rather than h2c.
    public let overTLS: Bool
    private let connection = LockedValue<HTTP2TestConnection?>(nil)

    init(server: RunningServer, overTLS: Bool) {
        self.server = server
        self.overTLS = overTLS
    }

    public var app: MockBackendApp { server.app }
    public var admin: AdminClient { server.admin }
    public var api: TestAPIClient { server.api }

    private var port: Int { overTLS ? (server.tlsPort ?? 0) : server.port }

    /// The connection streams open on: the current one while the server still takes new
    /// streams on it, else a new one. Connecting blocks (TCP, the TLS handshake), so it
    /// happens off the threads Swift concurrency runs every test's tasks on.
    func currentConnection() async throws -> HTTP2TestConnection {
        if let current = connection.withLock({ $0 }), current.isUsable { return current }
        let (port, tls) = (port, overTLS)
        let fresh = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try HTTP2TestConnection(port: port, tls: tls) })
            }
        }
        let (chosen, spare) = connection.withLock { current -> (HTTP2TestConnection, HTTP2TestConnection?) in
            // Another request connected meanwhile: its connection is the one.
            if let current, current.isUsable { return (current, fresh) }
            current = fresh
            return (fresh, nil)
        }
        spare?.close()
        return chosen
    }

    /// The code of the GOAWAY the server sent on the current connection, once it has.
    public var goAwayCode: UInt32? {
        connection.withLock { $0 }?.receivedGoAway
    }

    /// Closes the connection; `withApp` calls it before the server stops.
    func close() {
        connection.withLock { $0 }?.close()
    }

    /// The fields of a request: the pseudo-header fields, then `headers` less those HTTP/2
    /// forbids (RFC 9113 §8.2.2); a `Host` becomes `:authority`.
    private func fields(_ method: String, _ target: String, headers: [String: String], body: String?) -> [(
        String, String
    )] {
        var authority = "127.0.0.1:\(port)"
        var rest: [(String, String)] = []
        let connectionSpecific: Set = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            let lower = name.lowercased()
            if lower == "host" {
                authority = value
            } else if !connectionSpecific.contains(lower), lower != "content-length" {
                rest.append((lower, value))
            }
        }
        if let body {
            if !rest.contains(where: { $0.0 == "content-type" }) { rest.append(("content-type", "application/json")) }
            rest.append(("content-length", String(body.utf8.count)))
        }
        return [
            (":method", method), (":scheme", overTLS ? "https" : "http"), (":authority", authority),
            (":path", target),
        ] + rest
    }

    public func request(_ method: String, _ target: String, headers: [String: String], body: String?) async throws
        -> RawResponse
    {
        let stream = try await open(method, target, headers: headers, body: body)
        let response = try await stream.readResponse()
        return method == "HEAD"
            ? RawResponse(version: "HTTP/2", status: response.status, headers: response.headers, body: []) : response
    }

    public func openStream(_ target: String, headers: [String: String]) async throws -> any StreamClient {
        let stream = try await open("GET", target, headers: headers, body: nil)
        try await stream.waitForHead()
        return stream
    }

    /// Starts `method target` with a body the test sends in parts (`HTTP2StreamClient.sendBody`),
    /// declared `contentLength` long when given.
    public func startUpload(_ method: String, _ target: String, headers: [String: String] = [:], contentLength: Int?)
        async throws -> HTTP2StreamClient
    {
        let connection = try await currentConnection()
        var fields = fields(method, target, headers: headers, body: nil)
        if let contentLength { fields.append(("content-length", String(contentLength))) }
        let id = try connection.submit(fields: fields, body: [], moreBody: true)
        return HTTP2StreamClient(connection: connection, stream: id)
    }

    private func open(_ method: String, _ target: String, headers: [String: String], body: String?) async throws
        -> HTTP2StreamClient
    {
        let connection = try await currentConnection()
        let id = try connection.submit(
            fields: fields(method, target, headers: headers, body: body), body: body.map { Array($0.utf8) })
        return HTTP2StreamClient(connection: connection, stream: id)
    }
}
#endif
