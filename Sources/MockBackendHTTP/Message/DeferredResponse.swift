import MockBackendSupport

/// A response whose head is not known yet: the answer of a proxy waiting for its upstream.
/// The connection holds the request in flight (no timeout runs meanwhile), and answers it
/// once `complete(with:)` is called, from any thread. If the connection goes first (its
/// client leaves, the server stops), `onCancel` handlers run instead, so the producer can
/// let go of what it holds.
///
/// Middleware that changes a response on the way out works on a deferred one through
/// `HTTPResponse.mapResolved`, which applies the change once the response is known.
///
/// Invariant: exactly one of delivery and cancellation happens, once.
public final class DeferredResponse: Sendable {
    private enum State {
        /// Neither the response nor its receiver yet.
        case waiting(receiver: (@Sendable (HTTPResponse) -> Void)?, cancelHandlers: [@Sendable () -> Void])
        /// Completed before a receiver attached: held until one does.
        case completed(HTTPResponse)
        case delivered
        case cancelled
    }

    private let state = LockedValue(State.waiting(receiver: nil, cancelHandlers: []))

    public init() {}

    /// Answers the request with `response`, which must not itself be deferred. Only the
    /// first call counts, and none after a cancellation.
    public func complete(with response: HTTPResponse) {
        let receiver: (@Sendable (HTTPResponse) -> Void)? = state.withLock { state in
            guard case .waiting(let receiver, _) = state else { return nil }
            guard let receiver else {
                state = .completed(response)
                return nil
            }
            state = .delivered
            return receiver
        }
        receiver?(response)
    }

    /// Runs `handler` once if the request is given up before it is answered; at once if it
    /// already has been.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            switch state {
            case .waiting(let receiver, let handlers):
                state = .waiting(receiver: receiver, cancelHandlers: handlers + [handler])
                return false
            case .cancelled:
                return true
            case .completed, .delivered:
                return false
            }
        }
        if runNow { handler() }
    }

    /// Whether the request was given up.
    public var isCancelled: Bool {
        state.withLock { if case .cancelled = $0 { true } else { false } }
    }

    /// The connection (or a wrapping deferred response) takes the response when it comes.
    package func receive(_ receiver: @escaping @Sendable (HTTPResponse) -> Void) {
        let ready: HTTPResponse? = state.withLock { state in
            switch state {
            case .waiting(_, let handlers):
                state = .waiting(receiver: receiver, cancelHandlers: handlers)
                return nil
            case .completed(let response):
                state = .delivered
                return response
            case .delivered, .cancelled:
                return nil
            }
        }
        if let ready { receiver(ready) }
    }

    /// The request is given up: its connection closed before the answer came.
    package func cancel() {
        let handlers: [@Sendable () -> Void] = state.withLock { state in
            switch state {
            case .waiting(_, let handlers):
                state = .cancelled
                return handlers
            case .completed:
                state = .cancelled
                return []
            case .delivered, .cancelled:
                return []
            }
        }
        for handler in handlers { handler() }
    }
}

extension HTTPResponse {
    /// This response with `transform` applied: now, or for a deferred response once it is
    /// known (a cancellation passes through to the original). How middleware changes a
    /// response on the way out without caring whether it is deferred.
    public func mapResolved(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPResponse {
        guard case .deferred(let inner) = body else { return transform(self) }
        let outer = DeferredResponse()
        outer.onCancel { inner.cancel() }
        inner.receive { response in outer.complete(with: transform(response)) }
        return HTTPResponse(status: status, headers: headers, body: .deferred(outer))
    }

    /// A response known later (`DeferredResponse`).
    public static func deferred(_ deferred: DeferredResponse) -> HTTPResponse {
        HTTPResponse(status: 0, body: .deferred(deferred))
    }

    /// Whether the response is known only later.
    public var isDeferred: Bool {
        if case .deferred = body { return true }
        return false
    }
}
