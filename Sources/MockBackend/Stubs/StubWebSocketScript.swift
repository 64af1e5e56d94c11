import MockBackendAPI
import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// mockbackend's own `response.webSocket`: a WebSocket answered on the stub's path, whose
/// messages are played to the client on the simulation clock, then closed with a code (or
/// left open without `close`), as `--record` writes a recorded socket.
///
/// ```json
/// {"messages": [{"text": "{\"type\":\"progress\"}", "delayMs": 120}, {"binary": "AAE=", "delayMs": 0}],
///  "close": {"code": 1000, "reason": "done"}}
/// ```
///
/// What the client sends is read and dropped. A request that is no WebSocket handshake
/// gets the handshake's error (RFC 6455 §4.2.1).
struct StubWebSocketScript: Sendable {
    struct Message: Sendable {
        var delayMilliseconds: Int
        var message: PreparedWebSocketMessage
        var size: Int
    }

    var messages: [Message]
    var close: (code: UInt16, reason: String)?

    /// Reads the `webSocket` object at `path`.
    static func parse(_ value: JSONValue, path: String) throws(StubMappingError) -> StubWebSocketScript {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(known: ["messages", "close"])
        var messages: [Message] = []
        for (index, item) in (try reader.array("messages") ?? []).enumerated() {
            messages.append(try message(item, path: reader.field("messages") + "[\(index)]"))
        }
        let size = messages.reduce(0) { $0 + $1.size }
        guard size <= StubEventStream.maximumBytes else {
            throw StubMappingError(
                field: path, "holds \(size) bytes of messages; at most \(StubEventStream.maximumBytes) are allowed")
        }
        var close: (UInt16, String)?
        if let given = try reader.object("close") {
            try given.refuseUnknownKeys(known: ["code", "reason"])
            let code = try given.integer("code") ?? 1000
            // RFC 6455 §7.4: 1005, 1006 and 1015 are never sent; below 1000 none is defined.
            guard (1000...4999).contains(code), ![1004, 1005, 1006, 1015].contains(code) else {
                throw StubMappingError(
                    field: given.field("code"), "must be a close code that may be sent (RFC 6455 §7.4)")
            }
            let reason = try given.string("reason") ?? ""
            guard reason.utf8.count <= WebSocketClosePayload.maxReasonBytes else {
                throw StubMappingError(
                    field: given.field("reason"), "must be at most \(WebSocketClosePayload.maxReasonBytes) bytes")
            }
            close = (UInt16(code), reason)
        }
        return StubWebSocketScript(messages: messages, close: close)
    }

    private static func message(_ value: JSONValue, path: String) throws(StubMappingError) -> Message {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(known: ["text", "binary", "delayMs"])
        let delay = try reader.milliseconds("delayMs") ?? 0
        switch (try reader.string("text"), try reader.string("binary")) {
        case (let text?, nil):
            return Message(
                delayMilliseconds: delay, message: PreparedWebSocketMessage(text: text), size: text.utf8.count)
        case (nil, let encoded?):
            guard let data = Data(base64Encoded: encoded) else {
                throw StubMappingError(field: reader.field("binary"), "is not base64")
            }
            return Message(
                delayMilliseconds: delay, message: PreparedWebSocketMessage(binary: Array(data)), size: data.count)
        default:
            throw StubMappingError(field: path, "needs exactly one of text and binary")
        }
    }
}
