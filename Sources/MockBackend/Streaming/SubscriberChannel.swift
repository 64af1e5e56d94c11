import MockBackendHTTP
import ServerSentEvents

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The connection a stream subscriber is on: an event-stream response, or a WebSocket (the
/// V1 progress socket of an import job), which gets each event as one JSON text message.
enum SubscriberChannel: Sendable {
    case eventStream(ResponseBodyWriter)
    case webSocket(WebSocketWriter)

    var connectionID: UInt64 {
        switch self {
        case .eventStream(let writer): writer.connectionID
        case .webSocket(let writer): writer.connectionID
        }
    }

    /// `"sse"` or `"websocket"`, as the stream journal and the admin feed name it.
    var protocolName: String {
        switch self {
        case .eventStream: "sse"
        case .webSocket: "websocket"
        }
    }

    /// Whether both are the same writer.
    func isSame(as other: SubscriberChannel) -> Bool {
        switch (self, other) {
        case (.eventStream(let one), .eventStream(let two)): one === two
        case (.webSocket(let one), .webSocket(let two)): one === two
        default: false
        }
    }

    /// Bytes an event stream sends as they are (a comment, a `retry:`, a `reset` event); a
    /// WebSocket has nothing to say of them.
    func writeStreamBytes(_ bytes: [UInt8]) {
        if case .eventStream(let writer) = self { writer.write(bytes) }
    }

    /// Logged events: one write of their bytes on an event stream, a message each on a
    /// WebSocket.
    func write(_ events: [LoggedEvent]) {
        switch self {
        case .eventStream(let writer):
            var bytes: [UInt8] = []
            bytes.reserveCapacity(events.reduce(0) { $0 + $1.bytes.count })
            for event in events { bytes += event.bytes }
            writer.write(bytes)
        case .webSocket(let writer):
            for event in events { writer.send(text: event.webSocketText) }
        }
    }

    /// One event sent to this connection alone.
    func write(_ event: ServerSentEvent, retry: Int?) {
        switch self {
        case .eventStream(let writer): writer.write(SSEEncoder.encode(event, retry: retry))
        case .webSocket(let writer): writer.send(text: Self.webSocketText(of: event))
        }
    }

    /// The clean end: the end of the body, or the closing handshake with 1000.
    func finish() {
        switch self {
        case .eventStream(let writer): writer.finish()
        case .webSocket(let writer): writer.close(code: .normalClosure)
        }
    }

    /// An admin disconnect: a broken connection (FIN, or RST), or a graceful end — the end
    /// of the body, or the closing handshake with 1001 (going away).
    func disconnect(_ mode: DisconnectMode) {
        switch (self, mode) {
        case (.eventStream(let writer), .graceful): writer.finish()
        case (.webSocket(let writer), .graceful): writer.close(code: .goingAway)
        case (.eventStream(let writer), .broken): writer.abort(reset: false)
        case (.webSocket(let writer), .broken): writer.abort(reset: false)
        case (.eventStream(let writer), .reset): writer.abort(reset: true)
        case (.webSocket(let writer), .reset): writer.abort(reset: true)
        }
    }

    func whenDrained(toAtMost threshold: Int, _ body: @escaping @Sendable () -> Void) {
        switch self {
        case .eventStream(let writer): writer.whenDrained(toAtMost: threshold, body)
        case .webSocket(let writer): writer.whenDrained(toAtMost: threshold, body)
        }
    }

    /// Runs `handler` once the connection has ended, with how the transport ended and the
    /// cause to record when the stream did not ask for the end itself: a WebSocket whose
    /// closing handshake completed without the stream closing it was closed by the client.
    func onClose(_ handler: @escaping @Sendable (StreamEndReason, StreamEndCause?) -> Void) {
        switch self {
        case .eventStream(let writer):
            writer.onClose { reason in handler(reason, nil) }
        case .webSocket(let writer):
            writer.onClose { event in handler(event.transport, .clientClosed) }
        }
    }

    /// The WebSocket text of an event: its JSON data object with the event's name as
    /// `type` first (`{"type":"progress",...}`); data that is not a JSON object goes under
    /// `data`, as a string.
    static func webSocketText(of event: ServerSentEvent) -> String {
        let type = jsonString(event.type ?? "message")
        let data = event.data.trimmingSpaces()
        guard data.hasPrefix("{"), data.hasSuffix("}"),
            (try? JSONDecoder().decode([String: JSONValue].self, from: Data(data.utf8))) != nil
        else {
            return #"{"type":\#(type),"data":\#(jsonString(event.data))}"#
        }
        let rest = data.dropFirst().trimmingSpaces()
        return rest == "}" ? #"{"type":\#(type)}"# : #"{"type":\#(type),"# + rest
    }

    private static func jsonString(_ text: String) -> String {
        (try? JSONCoding.encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? #""""#
    }
}

extension LoggedEvent {
    /// The event as a WebSocket message (`SubscriberChannel.webSocketText(of:)`), read
    /// back from its bytes.
    var webSocketText: String {
        var parser = SSEParser()
        for output in parser.feed(bytes) {
            if case .event(let event) = output { return SubscriberChannel.webSocketText(of: event) }
        }
        return #"{"type":"message"}"#
    }
}
