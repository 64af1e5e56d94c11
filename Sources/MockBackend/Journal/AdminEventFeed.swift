import MockBackendHTTP
import ServerSentEvents

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The live feed of what happens in the mock, `GET /__admin/events`: requests, logins,
/// session expiries, faults fired, stream connects and disconnects. The dashboard and
/// tests subscribe to it. Each event's type names what happened; its data is a JSON
/// object with `ts` (ISO 8601) and the details.
package final class AdminEventFeed: Sendable {
    /// The kinds of event the feed carries.
    package enum Kind: String, Sendable, CaseIterable {
        case request
        case login
        case sessionExpired = "session.expired"
        case sessionTerminated = "session.terminated"
        case faultFired = "fault.fired"
        case streamConnected = "stream.connected"
        case streamDisconnected = "stream.disconnected"
    }

    /// The feed's own stream, `admin/events`.
    package let stream: EventStream

    package init(streams: EventStreamRegistry) {
        stream = streams.stream(named: "admin/events", settings: EventStreamSettings(heartbeat: true))
    }

    /// Publishes one event with `fields` and a `ts`.
    package func publish(_ kind: Kind, _ fields: [String: JSONValue]) {
        var object = fields
        object["ts"] = .string(Timestamp.iso8601(Date()))
        let data = JSONValue.object(object).serialized.map { String(decoding: $0, as: UTF8.self) }
        stream.publish(ServerSentEvent(type: kind.rawValue, data: data ?? "{}"))
    }
}
