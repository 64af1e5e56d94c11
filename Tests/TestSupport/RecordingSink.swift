import MockBackendHTTP
import MockBackendSupport
import ServerSentEvents

/// A stream sink that keeps what it is written, for testing a stream without sockets: a
/// model of one connection whose transport takes bytes as the test says.
///
/// Every write, finish and abort runs on `executor` (a `ManualExecutor` unless given one),
/// as a connection's would on its loop. By default the transport takes everything at once:
/// each payload's events are delivered when it is written. With `holding`, written bytes
/// stay unsent until `take(_:)` lets the transport have some, as a slow reader does; events
/// are delivered when their last byte is taken, drain waiters run when the unsent bytes
/// fall to their mark, and a sink holding more than `maxUnsentBytes` ends as a slow reader,
/// as a connection does.
public final class RecordingSink: StreamSink, @unchecked Sendable {
    /// What happened to the sink, in order.
    public enum Entry: Sendable, Equatable {
        /// Event-stream bytes (the body, unframed), with the events they carry.
        case bytes([UInt8], events: Int)
        /// WebSocket text messages.
        case messages([String])
        case finished(StreamFinish)
        case aborted(reset: Bool)
    }

    private struct Waiter {
        let threshold: Int
        let progress: @Sendable () -> Void
        let body: @Sendable () -> Void
    }

    private struct State {
        var entries: [Entry] = []
        var endReason: StreamEndReason?
        var endHandlers: [@Sendable (StreamEndReason) -> Void] = []
        var holding: Bool
        /// Written and not taken: each write's bytes left and the events it carries.
        var unsent: [(bytes: Int, events: Int)] = []
        var waiters: [Waiter] = []
        var namedEnd: String?
    }

    public let connectionID: UInt64
    public let framing: StreamFraming
    public let executor: any StreamExecutor
    public let maxUnsentBytes: Int
    public let deliveries = DeliveryTally()
    private let state: LockedValue<State>

    public init(
        connectionID: UInt64, framing: StreamFraming = .eventStream, executor: any StreamExecutor = ManualExecutor(),
        holding: Bool = false, maxUnsentBytes: Int = 1 << 20
    ) {
        self.connectionID = connectionID
        self.framing = framing
        self.executor = executor
        self.maxUnsentBytes = maxUnsentBytes
        state = LockedValue(State(holding: holding))
    }

    /// The executor, as the manual one it usually is.
    public var manual: ManualExecutor? { executor as? ManualExecutor }

    public var isClosed: Bool { state.withLock { $0.endReason != nil } }

    /// Why it ended, once it has.
    public var endReason: StreamEndReason? { state.withLock { $0.endReason } }

    /// Everything that happened to it, in order.
    public var entries: [Entry] { state.withLock { $0.entries } }

    /// The event-stream bytes written, as text.
    public var text: String {
        var bytes: [UInt8] = []
        for case .bytes(let part, _) in entries { bytes += part }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The events a client would dispatch from the bytes written.
    public var events: [ServerSentEvent] {
        var parser = SSEParser()
        return parser.feed(Array(text.utf8)).compactMap { output in
            if case .event(let event) = output { return event }
            return nil
        }
    }

    /// The WebSocket messages written.
    public var messages: [String] {
        entries.flatMap { entry -> [String] in
            if case .messages(let texts) = entry { return texts }
            return []
        }
    }

    /// Bytes written that the transport has not taken.
    public var unsentBytes: Int { state.withLock { $0.unsent.reduce(0) { $0 + $1.bytes } } }

    public func writeOnExecutor(_ payload: StreamPayload) {
        let entry: Entry
        let size: Int
        switch framing {
        case .eventStream:
            guard let body = payload.body else { return }
            entry = .bytes(body.raw, events: payload.events)
            size = body.raw.count
        case .webSocket:
            guard let messages = payload.messages else { return }
            entry = .messages(messages.frames.map(Self.text(ofFrame:)))
            size = messages.joined.count
        }
        let (delivered, overBound) = state.withLock { state -> (Int, Bool) in
            guard state.endReason == nil else { return (0, false) }
            state.entries.append(entry)
            guard state.holding else { return (payload.events, false) }
            state.unsent.append((size, payload.events))
            return (0, state.unsent.reduce(0) { $0 + $1.bytes } > maxUnsentBytes)
        }
        deliveries.noteDelivered(delivered)
        // As a connection does: a reader past the bound of unsent bytes is dropped.
        if overBound { end(.slowReader, entry: nil) }
    }

    public func finish(_ ending: StreamFinish) {
        executor.execute { self.end(.finished, entry: .finished(ending)) }
    }

    public func abort(reset: Bool) {
        executor.execute { self.end(.aborted, entry: .aborted(reset: reset)) }
    }

    /// The client goes away: the sink ends with `clientClosed`, on its executor.
    public func clientCloses() {
        executor.execute { self.end(.clientClosed, entry: nil) }
    }

    public func whenDrainedOnExecutor(
        toAtMost threshold: Int, progress: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () -> Void
    ) {
        let now = state.withLock { state -> Bool in
            if state.endReason != nil || state.unsent.reduce(0, { $0 + $1.bytes }) <= threshold { return true }
            state.waiters.append(Waiter(threshold: threshold, progress: progress, body: body))
            return false
        }
        if now { body() }
    }

    public func onEnd(_ handler: @escaping @Sendable (StreamEndReason) -> Void) {
        let ended = state.withLock { state -> StreamEndReason? in
            if let reason = state.endReason { return reason }
            state.endHandlers.append(handler)
            return nil
        }
        if let ended { handler(ended) }
    }

    public func nameEnd(_ word: String) {
        state.withLock { $0.namedEnd = word }
    }

    /// The word the stream gave for the end, if it gave one.
    public var namedEnd: String? { state.withLock { $0.namedEnd } }

    /// Holds every later write unsent until `take(_:)`, or (false) takes everything at once.
    public func hold(_ holding: Bool = true) {
        if !holding { take(.max) }
        state.withLock { $0.holding = holding }
    }

    /// Lets the transport take up to `count` unsent bytes, oldest first: the events whose
    /// last byte goes are delivered, and drain waiters whose mark is reached run.
    public func take(_ count: Int) {
        let (delivered, ready, progressing) = state.withLock { state in
            var left = count
            var delivered = 0
            while left > 0, !state.unsent.isEmpty {
                let taken = min(left, state.unsent[0].bytes)
                state.unsent[0].bytes -= taken
                left -= taken
                if state.unsent[0].bytes == 0 { delivered += state.unsent.removeFirst().events }
            }
            let unsent = state.unsent.reduce(0) { $0 + $1.bytes }
            var ready: [@Sendable () -> Void] = []
            state.waiters.removeAll { waiter in
                guard unsent <= waiter.threshold else { return false }
                ready.append(waiter.body)
                return true
            }
            return (delivered, ready, state.waiters.map(\.progress))
        }
        deliveries.noteDelivered(delivered)
        for body in ready { body() }
        if count > 0 { for progress in progressing { progress() } }
    }

    private func end(_ reason: StreamEndReason, entry: Entry?) {
        let (handlers, waiters) = state.withLock { state -> ([@Sendable (StreamEndReason) -> Void], [Waiter]) in
            guard state.endReason == nil else { return ([], []) }
            state.endReason = reason
            if let entry { state.entries.append(entry) }
            defer {
                state.endHandlers = []
                state.waiters = []
            }
            return (state.endHandlers, state.waiters)
        }
        for waiter in waiters { waiter.body() }
        for handler in handlers { handler(reason) }
    }

    /// The payload of an unmasked server text frame, as text.
    private static func text(ofFrame frame: [UInt8]) -> String {
        guard frame.count >= 2 else { return "" }
        let length = Int(frame[1] & 0x7F)
        let offset = length == 126 ? 4 : length == 127 ? 10 : 2
        return String(decoding: frame.dropFirst(offset), as: UTF8.self)
    }
}
