import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a WebSocket a tracker reads delivers, in order.
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message (opcode 0x1, RFC 6455 §5.6), fragments joined.
    case text(String)
    /// A binary message (opcode 0x2).
    case binary(Data)
    /// The peer's close frame (§5.5.1), already answered by the transport: its status code
    /// (nil when it had none, §7.1.5) and reason. Nothing follows it.
    case close(code: UInt16?, reason: String)
    /// A ping from the peer (§5.5.2), already answered with a pong. Only transports that see
    /// pings report them (`URLSessionWebSocketTask` answers them itself and does not say);
    /// a silence watchdog counts them as signs of life.
    case ping
}

/// Opens WebSockets: the seam between a tracker and the network, so that the same tracker
/// runs over `URLSessionWebSocketTask` in an app and over a plain socket in tests on Linux.
public protocol WebSocketTransport: Sendable {
    /// Opens a WebSocket with `request` (a `ws://` or `wss://` URL and any extra headers).
    ///
    /// A transport may return before the opening handshake (RFC 6455 §4.1) has finished; a
    /// refused handshake (a status other than 101) then fails the first `receive()` instead.
    /// - Throws: when no connection could be made or the handshake was refused.
    func connect(_ request: URLRequest) async throws -> any WebSocketConnection
}

/// One open WebSocket, read by one task at a time.
public protocol WebSocketConnection: Sendable {
    /// The next message. Once `.close` has been returned, or after `cancel(code:)`, it throws.
    /// - Throws: when the connection failed or ended without a close frame (what RFC 6455
    ///   §7.1.5 calls 1006), or was cancelled.
    func receive() async throws -> WebSocketMessage

    /// Ends the connection from this side: sends a close frame with `code` (§7.4.1: 1000
    /// when the purpose is fulfilled, 1001 when going away) unless one was exchanged
    /// already, and releases the connection without waiting for the echo. A pending
    /// `receive()` throws. Safe to call from any thread, any number of times.
    func cancel(code: UInt16)
}

/// Close codes a tracker uses (RFC 6455 §7.4.1).
public enum WebSocketCloseCode {
    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure: UInt16 = 1000
    /// 1001: the endpoint is going away.
    public static let goingAway: UInt16 = 1001
}

/// Why a WebSocket transport failed, for transports that do not have errors of their own.
public enum WebSocketTransportError: Error, Sendable, Equatable {
    /// The URL is not one the transport can open (a scheme or host it does not handle).
    case unsupportedURL(String)
    /// The server answered the opening handshake with this status instead of 101 (§4.1).
    case handshakeRefused(status: Int)
    /// The 101 answer was not a valid WebSocket handshake: a wrong `Sec-WebSocket-Accept`.
    case invalidHandshake(String)
    /// The connection ended without a close frame (1006, §7.1.5), by FIN or RST.
    case abnormalClosure
    /// The server broke RFC 6455 (a masked frame, reserved bits, invalid UTF-8, …).
    case protocolViolation(String)
    /// `cancel(code:)` was called, or the connection had already closed.
    case cancelled
}
