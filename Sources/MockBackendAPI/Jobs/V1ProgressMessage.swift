#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The V1 progress WebSocket of an import (`GET /ws/progress?jobId=`, operation
/// `importProgressWebSocket` in `openapi/openapi.yaml`).
///
/// Each text message is one `V1ProgressMessage`: the data of the V2 stream's event with the
/// event's name as `type` — `{"type":"progress","jobId":…,"progress":0.5,…}`. The fields are
/// the V2 event types' own (`ImportStartedEvent`, `ImportProgressEvent`, …), so one decoder
/// per event serves both wire formats: the message is decoded as the data of an event of
/// its `type`, which those types read past.
extension ImportStreamEvent {
    /// Decodes one text message of the V1 progress WebSocket; nil for a `type` this client
    /// does not know (an admin push such as `note`), as `decode(type:data:)` does.
    /// - Throws: `DecodingError` when the text is not a JSON object with a string `type`, or
    ///   when a known type's fields do not match it.
    public static func decode(v1Message text: String) throws -> ImportStreamEvent? {
        let envelope = try JSONDecoder().decode(V1MessageEnvelope.self, from: Data(text.utf8))
        return try decode(type: envelope.type, data: text)
    }
}

/// One V1 progress message as the server writes it: the V2 event's own fields, with the
/// event's name as `type` beside them, encoded from the typed event in one pass (the fields
/// sorted, as every body the server writes).
public struct V1ProgressMessage<Event: WireEvent>: Encodable, Sendable {
    public var event: Event

    public init(_ event: Event) {
        self.event = event
    }

    private enum TypeKey: String, CodingKey {
        case type
    }

    public func encode(to encoder: any Encoder) throws {
        // Both containers write into the same JSON object.
        try event.encode(to: encoder)
        var container = encoder.container(keyedBy: TypeKey.self)
        try container.encode(Event.eventType ?? "message", forKey: .type)
    }
}

/// What every V1 progress message has: the name of the V2 event it carries.
private struct V1MessageEnvelope: Decodable {
    var type: String
}

extension ImportPaths {
    /// `GET` with an RFC 6455 upgrade: V1's progress WebSocket. The job goes in the
    /// `progressWebSocketJobParameter` query parameter: `ws/progress?jobId=import_…`.
    public static let progressWebSocket = "ws/progress"

    /// The query parameter of `progressWebSocket` that names the job.
    public static let progressWebSocketJobParameter = "jobId"
}
