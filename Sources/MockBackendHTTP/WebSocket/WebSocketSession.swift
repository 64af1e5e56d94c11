import Dispatch

/// The WebSocket side of an upgraded connection (`HTTPConnection.webSocket`): the decoder of
/// the client's frames, where the closing handshake stands, the ping timer. Confined to the
/// connection's event loop, like every other part of the connection; that is what makes
/// the `@unchecked Sendable` sound.
final class WebSocketSession: @unchecked Sendable {
    /// Where the connection is in the closing handshake (RFC 6455 §7.1).
    enum State {
        /// Messages go both ways.
        case open
        /// The server sent its close frame and waits for the client's (§7.1.2); no more
        /// messages or pongs go out (§5.5.1), and messages that still come in are dropped.
        case closeSent
        /// Over: both close frames crossed, or the connection failed. What is queued is
        /// being written; then the TCP connection closes, the server first (§7.1.1).
        case closed
    }

    let writer: WebSocketWriter
    var decoder: WebSocketFrameDecoder
    var assembler = WebSocketMessageAssembler()
    var state = State.open
    /// The code of the close frame the server sent, once it has sent one.
    var sentCode: WebSocketCloseCode?
    /// Pings the client every `WebSocketConfiguration.pingInterval`; nil when pings are off
    /// and once the session is over.
    var pingTimer: DispatchSourceTimer?

    init(writer: WebSocketWriter, maxMessageBytes: Int) {
        self.writer = writer
        decoder = WebSocketFrameDecoder(maxMessageBytes: maxMessageBytes)
    }

    /// Stops the pings; the timer's cancel handler updates the server's statistics.
    func stopPinging() {
        pingTimer?.cancel()
        pingTimer = nil
    }
}
