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
    /// The connection new streams open on, and every one opened, for `close`.
    private let connections = LockedValue<(current: HTTP2TestConnection?, all: [HTTP2TestConnection])>((nil, []))

    init(server: RunningServer, overTLS: Bool) {
        self.server = server
        self.overTLS = overTLS
    }

    public var app: MockBackendApp { server.app }
    public var admin: AdminClient { server.admin }
    public var api: TestAPIClient { server.api }

    private var port: Int { overTLS ? (server.tlsPort ?? 0) : server.port }

    /// The code of the GOAWAY the server sent on the current connection, once it has.
    public var goAwayCode: UInt32? {
        connections.withLock { $0.current }?.receivedGoAway
    }

    /// Closes every connection (GOAWAY NO_ERROR, then the socket), as a client going away
    /// does; `withApp` calls it before the server stops.
    public func close() {
        for connection in connections.withLock({ $0.all }) { connection.close() }
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
        var fields = fields(method, target, headers: headers, body: nil)
        if let contentLength { fields.append(("content-length", String(contentLength))) }
        return try await submit(fields: fields, body: [], moreBody: true)
    }

    private func open(_ method: String, _ target: String, headers: [String: String], body: String?) async throws
        -> HTTP2StreamClient
    {
        try await submit(
            fields: fields(method, target, headers: headers, body: body), body: body.map { Array($0.utf8) },
            moreBody: false)
    }

    /// Opens a stream on the current connection while the server still takes new streams
    /// on it, else on a new one. A connection the server ended before the stream could
    /// start is replaced, as client libraries retry a request no server has seen.
    ///
    /// A new connection and its first stream are opened together, off the threads Swift
    /// concurrency runs every test's tasks on (connecting blocks: TCP, the TLS handshake):
    /// between the two no task waits for a thread, so a busy run cannot let the server's
    /// idle timeout end the connection first.
    private func submit(fields: [(String, String)], body: [UInt8]?, moreBody: Bool) async throws
        -> HTTP2StreamClient
    {
        var attempt = 0
        while let current = connections.withLock({ $0.current }), current.isUsable, attempt < 3 {
            do {
                let id = try current.submit(fields: fields, body: body, moreBody: moreBody)
                return HTTP2StreamClient(connection: current, stream: id)
            } catch RawClientErrorForHTTP2.connectionClosed {
                attempt += 1
            }
        }
        let (port, tls) = (port, overTLS)
        let (fresh, id) = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let fresh = try HTTP2TestConnection(port: port, tls: tls)
                        return (fresh, try fresh.submit(fields: fields, body: body, moreBody: moreBody))
                    })
            }
        }
        // The new connection is the current one; streams still open on an older one go on.
        connections.withLock {
            $0.current = fresh
            $0.all.append(fresh)
        }
        return HTTP2StreamClient(connection: fresh, stream: id)
    }
}
#endif
