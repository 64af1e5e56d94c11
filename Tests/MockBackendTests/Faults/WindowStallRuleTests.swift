import MockBackendAPI
import MockBackendHTTP
import Testing

@testable import MockBackend

/// A `window_stall` rule acts on the body of an HTTP/2 request that has one (its window
/// stays shut), and otherwise on the answer (its DATA held): never on both for one request.
@Suite("window_stall: the body or the answer")
struct WindowStallRuleTests {
    private func request(_ version: HTTPVersion, body: String) -> HTTPRequest {
        HTTPRequest(method: "POST", target: "/upload", version: version, body: Array(body.utf8))
    }

    @Test func anHTTP2HeadWithABodyToComeFiresItOnce() {
        let store = FaultStore(ids: IdentifierSource(seed: 1))
        let rule = store.add(FaultRule(id: "", match: .init(path: "/upload"), fault: .windowStall(afterBytes: 10)))
        let head = request(.http2, body: "")
        #expect(store.fireRequestWindowStall(for: head)?.id == rule.id)
        // Once the body came (shorter than the stall), the answer is not stalled as well;
        // nor is the answer to a body that streams on (a proxied upload).
        #expect(store.fire(for: request(.http2, body: "short")) == nil)
        var streamed = request(.http2, body: "")
        streamed.bodyStream = RequestBodyStream(declaredLength: 10)
        #expect(store.fire(for: streamed) == nil)
        // A request without a body gets it on its answer.
        #expect(store.fire(for: HTTPRequest(method: "GET", target: "/upload", version: .http2))?.id == rule.id)
    }

    @Test func overHTTP1ItActsOnTheAnswerAlways() {
        let store = FaultStore(ids: IdentifierSource(seed: 1))
        let rule = store.add(FaultRule(id: "", match: .init(path: "/upload"), fault: .windowStall(afterBytes: 10)))
        #expect(store.fire(for: request(.http11, body: "a body"))?.id == rule.id)
    }

    @Test func otherKindsNeverFireOnAHead() {
        let store = FaultStore(ids: IdentifierSource(seed: 1))
        _ = store.add(FaultRule(id: "", match: .init(path: "/upload"), fault: .stall(afterEvents: 0, milliseconds: 10)))
        #expect(store.fireRequestWindowStall(for: request(.http2, body: "")) == nil)
        #expect(store.all.map(\.fired) == [0])
    }
}
