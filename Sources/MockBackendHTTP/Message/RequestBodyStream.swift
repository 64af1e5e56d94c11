// The fuzz build (fuzz/run.sh) compiles the parser, this file and LockedValue.swift into
// one module, where there is no MockBackendSupport to import.
#if canImport(MockBackendSupport)
import MockBackendSupport
#endif

/// A request body that arrives after its request has been answered from the head: a
/// proxied upload goes upstream part by part as the client sends it. The connection that
/// reads the body appends to it; one consumer, on any queue, takes from it.
///
/// Bounded: once `highWater` bytes wait untaken, `append` returns false and the connection
/// stops reading its client (TCP back-pressure) until the consumer has taken the wait down
/// to `lowWater`; `onRoom` then runs. A consumer that gives up (`cancel`) makes the rest
/// of the body arrive into nothing, so the connection still reads it to its end.
///
/// Callbacks run outside the lock, on whatever thread caused them: each side hops to its
/// own queue.
package final class RequestBodyStream: Sendable, Equatable {
    /// What the consumer takes next.
    package enum Part: Sendable, Equatable {
        case bytes([UInt8])
        /// The body arrived whole.
        case end
        /// The client went away before the body's end.
        case aborted
    }

    /// The body's `Content-Length`; nil for a chunked body.
    package let declaredLength: Int?
    private let highWater: Int
    private let lowWater: Int
    private let state = LockedValue(State())

    private struct State {
        var parts: [[UInt8]] = []
        var buffered = 0
        var ending: Part?
        var cancelled = false
        var anythingTaken = false
        /// Whether `append` said stop and `onRoom` has not run since.
        var full = false
        var whenReadable: (@Sendable () -> Void)?
        var onRoom: (@Sendable () -> Void)?
    }

    package init(declaredLength: Int?, highWater: Int = 256 * 1024, lowWater: Int = 64 * 1024) {
        self.declaredLength = declaredLength
        self.highWater = highWater
        self.lowWater = lowWater
    }

    package static func == (lhs: RequestBodyStream, rhs: RequestBodyStream) -> Bool { lhs === rhs }

    // MARK: The connection's side

    /// Runs each time the consumer has taken a full buffer down to the low water mark, or
    /// has given up.
    package func onRoom(_ callback: @escaping @Sendable () -> Void) {
        state.withLock { $0.onRoom = callback }
    }

    /// Adds body bytes; false when the buffer is full and reading should wait for `onRoom`.
    @discardableResult
    package func append(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        let (readable, hasRoom) = state.withLock { state -> ((@Sendable () -> Void)?, Bool) in
            guard !state.cancelled, state.ending == nil else { return (nil, true) }
            state.parts.append(bytes)
            state.buffered += bytes.count
            if state.buffered >= highWater { state.full = true }
            defer { state.whenReadable = nil }
            return (state.whenReadable, !state.full)
        }
        readable?()
        return hasRoom
    }

    /// The body arrived whole.
    package func finish() { end(with: .end) }

    /// The client left (or broke the framing) before the body's end.
    package func abort() { end(with: .aborted) }

    private func end(with ending: Part) {
        let readable = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.ending == nil else { return nil }
            state.ending = ending
            defer { state.whenReadable = nil }
            return state.whenReadable
        }
        readable?()
    }

    /// Whether the body has ended, whole or not.
    package var hasEnded: Bool { state.withLock { $0.ending != nil } }

    /// Whether reading should wait: the consumer is behind by the high water mark.
    package var isFull: Bool { state.withLock { $0.full } }

    // MARK: The consumer's side

    /// The next part, or nil when nothing is there yet (then `whenReadable`). Parts waiting
    /// are taken together, so a slow consumer does not pay per read of the client.
    package func next() -> Part? {
        let (part, room) = state.withLock { state -> (Part?, (@Sendable () -> Void)?) in
            if state.parts.isEmpty { return (state.ending, nil) }
            let bytes = state.parts.count == 1 ? state.parts[0] : Array(state.parts.joined())
            state.parts = []
            state.buffered = 0
            state.anythingTaken = true
            guard state.full else { return (.bytes(bytes), nil) }
            state.full = false
            return (.bytes(bytes), state.onRoom)
        }
        room?()
        return part
    }

    /// Runs `callback` once when a part can be taken: at once if one can now.
    package func whenReadable(_ callback: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if !state.parts.isEmpty || state.ending != nil { return true }
            state.whenReadable = callback
            return false
        }
        if now { callback() }
    }

    /// Whether the consumer has taken any byte: a body begun upstream cannot be sent again.
    package var isStarted: Bool { state.withLock { $0.anythingTaken } }

    /// The consumer wants no more: what waits is dropped, what comes is discarded.
    package func cancel() {
        let room = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            state.parts = []
            state.buffered = 0
            state.whenReadable = nil
            let wasFull = state.full
            state.full = false
            return wasFull ? state.onRoom : nil
        }
        room?()
    }
}
