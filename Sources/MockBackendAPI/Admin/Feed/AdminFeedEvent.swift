#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One event of the live admin feed, `GET /__admin/events` (schema `AdminFeedEvent` in
/// `openapi/openapi.yaml`): what happened, with its details. On the wire the kind is the
/// event's `event:` field and the details its data, a JSON object to which the feed adds
/// `ts` (ISO 8601) as it publishes.
///
/// The server publishes these values and the testing kit decodes them; the dashboard
/// (`Public/js/live-feed.js`) lists the same kinds and reads the same fields, which a test
/// holds to this type.
public enum AdminFeedEvent: Sendable, Equatable {
    /// What an event tells: its `event:` type on the feed.
    public enum Kind: String, Codable, Sendable, CaseIterable, CustomStringConvertible {
        /// A request outside `/__admin` was answered.
        case request
        /// A login, on the player or the generation API.
        case login
        /// A session expired.
        case sessionExpired = "session.expired"
        /// A session was terminated (logged out elsewhere).
        case sessionTerminated = "session.terminated"
        /// A fault rule fired.
        case faultFired = "fault.fired"
        /// A stream connection opened (never one of the feed's own).
        case streamConnected = "stream.connected"
        /// A stream connection ended.
        case streamDisconnected = "stream.disconnected"

        public var description: String { rawValue }
    }

    case request(Request)
    case login(Login)
    case sessionExpired(SessionExpired)
    case sessionTerminated(SessionTerminated)
    case faultFired(FaultFired)
    case streamConnected(StreamConnected)
    case streamDisconnected(StreamDisconnected)

    /// The event's kind.
    public var kind: Kind {
        switch self {
        case .request: .request
        case .login: .login
        case .sessionExpired: .sessionExpired
        case .sessionTerminated: .sessionTerminated
        case .faultFired: .faultFired
        case .streamConnected: .streamConnected
        case .streamDisconnected: .streamDisconnected
        }
    }

    /// The fields of the event's data object, `ts` aside.
    public var fields: [String: JSONValue] {
        switch self {
        case .request(let payload): payload.fields
        case .login(let payload): payload.fields
        case .sessionExpired(let payload): payload.fields
        case .sessionTerminated(let payload): payload.fields
        case .faultFired(let payload): payload.fields
        case .streamConnected(let payload): payload.fields
        case .streamDisconnected(let payload): payload.fields
        }
    }

    /// An event from its kind and its data (`ts` and any field the kind does not have
    /// are ignored); throws `DecodingError` when a field the kind needs is missing or of
    /// the wrong type.
    public init(kind: Kind, data: [UInt8]) throws {
        let data = Data(data)
        let decoder = JSONDecoder()
        switch kind {
        case .request: self = .request(try decoder.decode(Request.self, from: data))
        case .login: self = .login(try decoder.decode(Login.self, from: data))
        case .sessionExpired: self = .sessionExpired(try decoder.decode(SessionExpired.self, from: data))
        case .sessionTerminated: self = .sessionTerminated(try decoder.decode(SessionTerminated.self, from: data))
        case .faultFired: self = .faultFired(try decoder.decode(FaultFired.self, from: data))
        case .streamConnected: self = .streamConnected(try decoder.decode(StreamConnected.self, from: data))
        case .streamDisconnected: self = .streamDisconnected(try decoder.decode(StreamDisconnected.self, from: data))
        }
    }
}

/// The details of one kind of admin feed event. Decoded by the synthesized `Decodable`;
/// written by `fields`, which the server serializes itself (one object per request, without
/// an encoder's boxing of every value) — the two agree, or a test of this module fails.
public protocol AdminFeedPayload: Decodable, Sendable, Equatable {
    /// The data object's fields, `ts` aside, under the names the decoder reads.
    var fields: [String: JSONValue] { get }
}

extension JSONValue {
    /// A connection number as the feed writes it: an integer, clamped to `Int`.
    static func connection(_ number: UInt64) -> JSONValue {
        .integer(Int(clamping: number))
    }
}
