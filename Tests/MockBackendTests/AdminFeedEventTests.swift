import Foundation
import MockBackendAPI
import Testing

extension AdminFeedEvent {
    /// One event of `kind`, with every field set; `switch` makes a new kind name its sample.
    static func sample(_ kind: Kind) -> AdminFeedEvent {
        switch kind {
        case .request:
            .request(
                .init(
                    id: 7, method: "GET", target: "/health?x=1", status: 503, durationMs: 0.125, connection: 3,
                    fault: "status fault_1"))
        case .login: .login(.init(userId: 7_000_001, sessionId: "s1", api: "player"))
        case .sessionExpired:
            .sessionExpired(.init(sessionId: "s1", userId: 7_000_001, reason: "Maintenance", code: 42, streamsEnded: 2))
        case .sessionTerminated:
            .sessionTerminated(
                .init(sessionId: "s1", userId: 7_000_001, reason: "Logged out elsewhere", streamsEnded: 1))
        case .faultFired:
            .faultFired(.init(fault: "fault_1", kind: "status", method: "GET", target: "/health", connection: 3))
        case .streamConnected:
            .streamConnected(
                .init(stream: "imports/i1", connection: 4, lastEventId: "2", client: "app/1.0", protocol: "sse"))
        case .streamDisconnected:
            .streamDisconnected(.init(stream: "imports/i1", connection: 4, reason: "client_closed", delivered: 5))
        }
    }

    /// The data the feed sends for this event: its fields and a `ts`, serialized as the
    /// server does it.
    var data: [UInt8] {
        var object = fields
        object["ts"] = .string("2026-01-02T03:04:05.678Z")
        return JSONValue.object(object).serialized ?? []
    }
}

/// The admin feed's events are one type for the server, which writes each event's `fields`,
/// and the kit, which decodes them: the two codings must agree for every kind.
@Suite("Admin feed events")
struct AdminFeedEventTests {
    @Test(arguments: AdminFeedEvent.Kind.allCases)
    func whatTheServerWritesDecodesAsTheSameEvent(_ kind: AdminFeedEvent.Kind) throws {
        let event = AdminFeedEvent.sample(kind)
        #expect(event.kind == kind)
        #expect(try AdminFeedEvent(kind: kind, data: event.data) == event)
    }

    @Test func aStreamConnectedWithoutLastEventIDSendsNull() throws {
        let event = AdminFeedEvent.streamConnected(
            .init(stream: "channels/a", connection: 1, lastEventId: nil, client: "curl", protocol: "sse"))
        #expect(event.fields["lastEventId"] == .null)
        #expect(try AdminFeedEvent(kind: .streamConnected, data: event.data) == event)
    }

    @Test func aRequestWithoutFaultLeavesTheFieldOut() throws {
        let event = AdminFeedEvent.request(
            .init(id: 1, method: "GET", target: "/", status: 200, durationMs: 1, connection: 1))
        #expect(event.fields["fault"] == nil)
        #expect(try AdminFeedEvent(kind: .request, data: event.data) == event)
    }

    @Test func dataThatIsNotTheKindsIsRefused() {
        let login = AdminFeedEvent.sample(.login)
        #expect(throws: DecodingError.self) { try AdminFeedEvent(kind: .request, data: login.data) }
    }
}
