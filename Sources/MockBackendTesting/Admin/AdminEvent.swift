import Foundation
import MockBackend

/// One event of the live admin feed, `GET /__admin/events`: what happened (`kind`) and its
/// details (`fields`: `ts` and the rest, as the README's "The live admin feed" lists them).
public struct AdminEvent: Sendable, Equatable {
    /// What an event tells: its `event:` type on the feed.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// A request outside `/__admin` was answered: `method`, `target`, `status`, `connection`.
        public static let request = Kind(rawValue: "request")
        /// A login: `api` (`player` or `generation`), `sessionId`, `userId`.
        public static let login = Kind(rawValue: "login")
        /// A session expired: `sessionId`, `userId`, `reason`, `code`, `streamsEnded`.
        public static let sessionExpired = Kind(rawValue: "session.expired")
        /// A session was terminated: `sessionId`, `userId`, `reason`.
        public static let sessionTerminated = Kind(rawValue: "session.terminated")
        /// A fault rule fired: the rule's `id`, `kind`, the request.
        public static let faultFired = Kind(rawValue: "fault.fired")
        /// A stream connection opened: `stream`, `connection`, `lastEventId`, `client`, `protocol`.
        public static let streamConnected = Kind(rawValue: "stream.connected")
        /// A stream connection ended: `stream`, `connection`, `reason`, `delivered`.
        public static let streamDisconnected = Kind(rawValue: "stream.disconnected")

        public var description: String { rawValue }
    }

    /// The event's id on the feed.
    public var id: String?
    public var kind: Kind
    /// The data object's fields.
    public var fields: [String: JSONValue]

    public init(id: String?, kind: Kind, fields: [String: JSONValue]) {
        self.id = id
        self.kind = kind
        self.fields = fields
    }

    /// A feed event as it arrives; nil for data that is not a JSON object.
    init?(_ event: ServerSentEvent) {
        guard let kind = event.type,
            let fields = try? JSONDecoder().decode([String: JSONValue].self, from: Data(event.data.utf8))
        else { return nil }
        self.init(id: event.id, kind: Kind(rawValue: kind), fields: fields)
    }

    public subscript(field: String) -> JSONValue? { fields[field] }

    /// A text field; nil when it is missing, `null` or not text.
    public func string(_ field: String) -> String? {
        if case .string(let value)? = fields[field] { return value }
        return nil
    }

    /// A whole-number field; nil when it is missing, `null` or not a whole number.
    public func int(_ field: String) -> Int? {
        switch fields[field] {
        case .integer(let value)?: value
        case .number(let value)? where value.rounded() == value: Int(exactly: value)
        default: nil
        }
    }
}

/// No matching event came on the admin feed in time.
public struct AdminEventTimeout: Error, Sendable, CustomStringConvertible {
    public var kind: AdminEvent.Kind?
    public var timeout: Duration
    /// Every event the wait saw, matching or not, for the failure message.
    public var seen: [AdminEvent]

    public var description: String {
        "no \(kind.map { "\($0) " } ?? "")event matched on the admin feed within \(timeout); saw "
            + (seen.isEmpty ? "none" : seen.map { "\($0.kind)" }.joined(separator: ", "))
    }
}
