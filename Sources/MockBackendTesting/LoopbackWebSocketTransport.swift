import Foundation
import MockBackendClient
import MockBackendHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `WebSocketTransport` for tests on Linux, where `URLSessionWebSocketTask` cannot
/// connect (see `URLSessionWebSocketTransport`): RFC 6455 over a plain TCP socket to a
/// server on this machine, `ws://` only.
///
/// ```swift
/// let tracker = JobTracker(
///     v1ImportJobId: jobId, baseURL: server.baseURL, transport: LoopbackWebSocketTransport())
/// ```
/// It behaves as a client must (§4.1, §5): a random key, the server's accept value
/// checked, every frame masked with a fresh key, pings answered with pongs, a close frame
/// answered with one. Connections are `LoopbackWebSocket`s.
public struct LoopbackWebSocketTransport: WebSocketTransport {
    /// How long the opening handshake may take (stretched by `TestTiming`).
    public var handshakeTimeout: Duration

    public init(handshakeTimeout: Duration = .seconds(5)) {
        self.handshakeTimeout = handshakeTimeout
    }

    /// Connects and completes the opening handshake.
    /// - Throws: `WebSocketTransportError.handshakeRefused` for an answer other than 101,
    ///   `.invalidHandshake` for a 101 that does not match the request, `.unsupportedURL`
    ///   for a URL that is not `ws://` or `http://` with a port, or a `RawClientError`.
    public func connect(_ request: URLRequest) async throws -> any WebSocketConnection {
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "ws" || scheme == "http",
            let host = components.host, let port = components.port
        else { throw WebSocketTransportError.unsupportedURL(request.url?.absoluteString ?? "") }
        let client = try RawHTTPClient(port: port, host: host == "localhost" ? "127.0.0.1" : host)
        // §4.1: the key is a random 16-byte nonce, base64-encoded.
        let key = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) }).base64EncodedString()
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        try client.send(
            RawWebSocketClient.upgradeRequest(path: target, key: key, extraHeaders: Self.headerLines(of: request)))
        let fileDescriptor = client.fileDescriptor
        let response = try await withTaskCancellationHandler {
            try await client.readResponse(timeout: handshakeTimeout)
        } onCancel: {
            // Ends the wait for the answer; the socket is closed with the client.
            _ = shutdown(fileDescriptor, Int32(SHUT_RDWR))
        }
        guard response.status == 101 else { throw WebSocketTransportError.handshakeRefused(status: response.status) }
        // §4.1: the client fails the connection unless the answer upgrades to websocket and
        // its accept value is the one derived from the key it sent.
        guard response.headers["Upgrade"]?.lowercased() == "websocket",
            response.headers["Sec-WebSocket-Accept"] == WebSocketHandshake.acceptValue(forKey: key)
        else { throw WebSocketTransportError.invalidHandshake(response.rawHead) }
        // Frames the server sent right behind its 101 are already in the client's buffer.
        return LoopbackWebSocket(client: client, received: client.takeBuffer())
    }

    /// The request's own headers as CRLF-ended lines, without those the handshake sets.
    private static func headerLines(of request: URLRequest) -> String {
        let handshake: Set = ["host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version"]
        return (request.allHTTPHeaderFields ?? [:])
            .filter { !handshake.contains($0.key.lowercased()) }
            .sorted { $0.key < $1.key }
            .map { "\($0.key): \($0.value)\r\n" }
            .joined()
    }
}
