import MockBackendSupport

/// How a connection's sink ends: once, with a reason, telling the handlers waiting for it
/// (each exactly once) and keeping the word its producer gave for it. Shared by the
/// HTTP/1.1 body writer and the HTTP/2 stream writer. Safe from any thread.
final class SinkEnding: Sendable {
    private struct State {
        var reason: StreamEndReason?
        var handlers: [@Sendable (StreamEndReason) -> Void] = []
        var namedEnd: String?
    }

    private let state = LockedValue(State())

    /// Runs `handler` once when the sink ends, or at once if it has.
    func onEnd(_ handler: @escaping @Sendable (StreamEndReason) -> Void) {
        let endedAlready: StreamEndReason? = state.withLock { state in
            if let reason = state.reason { return reason }
            state.handlers.append(handler)
            return nil
        }
        if let endedAlready { handler(endedAlready) }
    }

    /// Records the end and runs the handlers; later calls do nothing.
    func end(_ reason: StreamEndReason) {
        let handlers: [@Sendable (StreamEndReason) -> Void] = state.withLock { state in
            guard state.reason == nil else { return [] }
            state.reason = reason
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler(reason) }
    }

    func name(_ word: String) {
        state.withLock { $0.namedEnd = word }
    }

    /// The word the producer gave for the end (`StreamSink.nameEnd`), if it gave one.
    var namedEnd: String? { state.withLock { $0.namedEnd } }

    /// Why the sink ended, once it has.
    var reason: StreamEndReason? { state.withLock { $0.reason } }
}
