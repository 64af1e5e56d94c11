import MockBackendHTTP
import Testing

@testable import MockBackend

/// The fault that fires on a request reaches the request journal, and the journal's
/// `request` event on the admin feed, as a value that `FaultMiddleware` hands back with
/// its response: no socket, no string carried on the response.
@Suite("Fired faults reach the journal")
struct FiredFaultTests {
    private let journal: RequestJournal
    private let store = FaultStore(ids: IdentifierSource(seed: 1))
    private let middleware: RequestJournalMiddleware

    init() {
        let feed = AdminEventFeed(streams: EventStreamRegistry())
        journal = RequestJournal(events: feed)
        middleware = RequestJournalMiddleware(
            journal: journal, faults: FaultMiddleware(store: store, feed: feed),
            redaction: SecretRedaction(token: .bearer), redactsAll: false)
    }

    private func answer(_ target: String) throws -> HTTPResponse {
        try middleware.respond(to: HTTPRequest(method: "GET", target: target)) { _ in .text("route") }
    }

    @Test func theRuleThatFiredIsHandedBackWithTheResponse() throws {
        let rule = store.add(
            FaultRule(id: "", match: .init(path: "/health"), fault: .status(503, body: nil, retryAfter: nil)))
        let request = HTTPRequest(method: "GET", target: "/health")
        let faults = FaultMiddleware(store: store, feed: AdminEventFeed(streams: EventStreamRegistry()))
        let (response, fired) = try faults.respond(to: request) { _ in .text("route") }
        #expect(response.status == 503)
        #expect(fired == FiredFault(ruleID: rule.id, fault: rule.fault))
        let (passed, none) = try faults.respond(to: HTTPRequest(method: "GET", target: "/other")) { _ in
            .text("route")
        }
        #expect(passed.status == 200 && none == nil)
    }

    @Test func theJournalRecordsTheFaultByKindAndRule() throws {
        let rule = store.add(FaultRule(id: "", match: .init(path: "/health"), fault: .forbidden))
        #expect(try answer("/health").status == 403)
        #expect(try answer("/other").status == 200)
        let entries = journal.entries()
        #expect(entries.map(\.path) == ["/other", "/health"])
        #expect(entries.map(\.fault) == [nil, "forbidden \(rule.id)"])
    }
}
