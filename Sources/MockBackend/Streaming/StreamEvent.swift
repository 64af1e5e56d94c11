import MockBackendAPI
import MockBackendHTTP
import ServerSentEvents

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An event as a stream publishes it: the fields of its event-stream frame, and how to write
/// it as one WebSocket text message for a stream that also has WebSocket subscribers (an
/// import's V1 progress socket): `{"type": <the event's name>, <its fields>}`. The message
/// is encoded from the typed value (or the admin push's JSON), once, when a stream that
/// speaks WebSocket logs it; never read back from the frame's bytes.
package struct StreamEvent: Sendable {
    /// The event-stream frame.
    package var frame: ServerSentEvent
    /// The message's UTF-8 JSON text.
    let message: @Sendable () -> [UInt8]

    /// A wire event: its JSON as the frame's data (`JSONCoding.encoder`: sorted keys,
    /// slashes unescaped; a value that cannot be encoded, a NaN, goes out as `{}`), and as
    /// a message its fields with its `event:` name as `type` (`V1ProgressMessage`).
    package init<Event: WireEvent>(_ event: Event, id: String? = nil) {
        frame = ServerSentEvent(event, id: id)
        message = { (try? JSONCoding.encoder.encode(V1ProgressMessage(event))).map(Array.init) ?? Array("{}".utf8) }
    }

    /// An event given as JSON (an admin push): the JSON text as data, except that a string
    /// goes as its text. As a message, an object gets `type` beside its members; any other
    /// value goes under `data`.
    package init(type: String?, data: JSONValue, id: String? = nil) {
        frame = ServerSentEvent(type: type, data: data.text, id: id)
        message = { Self.message(type: type, data: data) }
    }

    /// A frame alone (the admin feed, the workflow stream: never on a WebSocket); as a
    /// message, its data goes under `data` as a string.
    package init(_ frame: ServerSentEvent) {
        self.frame = frame
        message = { Self.message(type: frame.type, data: .string(frame.data)) }
    }

    private static func message(type: String?, data: JSONValue) -> [UInt8] {
        var members: [String: JSONValue]
        if case .object(let object) = data {
            members = object
        } else {
            members = ["data": data]
        }
        members["type"] = .string(type ?? "message")
        return JSONValue.object(members).serialized ?? Array(#"{"type":"message"}"#.utf8)
    }
}

extension ServerSentEvent {
    /// A wire event as a frame: the `event:` type its type names, and its JSON as data,
    /// encoded as every body the server writes (`JSONCoding.encoder`: sorted keys, slashes
    /// unescaped). A value that cannot be encoded (a NaN) goes out as `{}`.
    package init<Event: WireEvent>(_ event: Event, id: String? = nil) {
        let data = (try? JSONCoding.encoder.encode(event)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        self.init(type: Event.eventType, data: data, id: id)
    }
}
