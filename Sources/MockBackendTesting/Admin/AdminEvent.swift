import Foundation
import MockBackend

/// One event of the live admin feed, `GET /__admin/events`, as it arrived: what happened
/// (`event`, typed by its kind) and the data object's fields as sent (`fields`: `ts` and the
/// rest, as the README's "The live admin feed" lists them).
public struct AdminEvent: Sendable, Equatable {
    /// What an event tells: its `event:` type on the feed.
    public typealias Kind = AdminFeedEvent.Kind

    /// The event's id on the feed.
    public var id: String?
    /// What happened, with its details.
    public var event: AdminFeedEvent
    /// The data object's fields, `ts` included.
    public var fields: [String: JSONValue]

    public init(id: String?, event: AdminFeedEvent, fields: [String: JSONValue]) {
        self.id = id
        self.event = event
        self.fields = fields
    }

    /// A feed event as it arrives; nil for one of a kind this kit does not know (such as a
    /// `reset`) or data that is not the kind's.
    init?(_ event: ServerSentEvent) {
        guard let kind = event.type.flatMap(Kind.init(rawValue:)),
            let typed = try? AdminFeedEvent(kind: kind, data: Array(event.data.utf8)),
            let fields = try? JSONDecoder().decode([String: JSONValue].self, from: Data(event.data.utf8))
        else { return nil }
        self.init(id: event.id, event: typed, fields: fields)
    }

    /// What happened: the event's `event:` type.
    public var kind: Kind { event.kind }

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
