import MockBackendSupport

/// Hands every state of an event source to any number of `AsyncStream`s, each made by
/// `subscribe()`. A new stream starts with the latest state (when there is one), then gets
/// every change in order; all of them finish with the source.
final class StateBroadcaster<State: Sendable>: Sendable {
    private struct Subscribers {
        var continuations: [UInt64: AsyncStream<State>.Continuation] = [:]
        var nextID: UInt64 = 0
        var latest: State?
        var finished = false
    }

    private let subscribers = LockedValue(Subscribers())

    /// A new stream of the states from now on.
    func subscribe() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream.makeStream(of: State.self)
        let (id, finished) = subscribers.withLock { subscribers -> (UInt64, Bool) in
            subscribers.nextID += 1
            // Yielded under the lock, so no state published meanwhile can come before it.
            if let latest = subscribers.latest { continuation.yield(latest) }
            if !subscribers.finished { subscribers.continuations[subscribers.nextID] = continuation }
            return (subscribers.nextID, subscribers.finished)
        }
        guard !finished else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `state` to every stream. The caller serialises calls, so the order holds.
    func publish(_ state: State) {
        let continuations = subscribers.withLock { subscribers -> [AsyncStream<State>.Continuation] in
            guard !subscribers.finished else { return [] }
            subscribers.latest = state
            return Array(subscribers.continuations.values)
        }
        for continuation in continuations { continuation.yield(state) }
    }

    /// Finishes every stream; later subscribers get the latest state and finish at once.
    func finish() {
        let continuations = subscribers.withLock { subscribers -> [AsyncStream<State>.Continuation] in
            subscribers.finished = true
            defer { subscribers.continuations.removeAll() }
            return Array(subscribers.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
