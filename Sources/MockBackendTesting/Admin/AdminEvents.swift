import Foundation
import MockBackend
import MockBackendClient
import MockBackendSupport

extension AdminClient {
    /// The live feed, `GET /__admin/events`: waits that suspend until the server says
    /// something happened, instead of polling for it.
    public struct Events: Sendable {
        let http: KitHTTP

        /// Follows the feed from now on: the subscription sees every event after this call
        /// returns, and none from before (it resumes after the feed's last id, so nothing that
        /// happens while it connects is missed). Start it before the action it waits for.
        public func subscribe() async throws -> AdminEventSubscription {
            let streams: [EventStreamSnapshot] = try await http.call("GET", "/__admin/streams")
            let last = streams.first { $0.name == AdminEventSubscription.streamName }?.lastEventId
            return AdminEventSubscription(http: http, lastEventID: last ?? "")
        }

        /// The first event of `kind` (any kind when nil) that `predicate` accepts, among those
        /// the feed still holds (its last 1,000) and those to come; throws
        /// `AdminEventTimeout` when none comes within `timeout` (scaled by `TestTiming`).
        ///
        /// ```swift
        /// let reconnect = try await admin.events.first(.streamConnected) {
        ///     $0.string("stream") == "imports/\(jobId)" && $0.string("lastEventId") != nil
        /// }
        /// ```
        @discardableResult
        public func first(
            _ kind: AdminEvent.Kind? = nil, timeout: Duration = .seconds(10),
            where predicate: @escaping @Sendable (AdminEvent) -> Bool = { _ in true }
        ) async throws -> AdminEvent {
            let subscription = AdminEventSubscription(http: http, lastEventID: nil)
            defer { subscription.cancel() }
            return try await subscription.next(kind, timeout: timeout, where: predicate)
        }
    }
}

/// A connection to the admin feed that keeps every event it receives, in order, and
/// resumes a waiting `next` the moment a matching one arrives. It reconnects with
/// Last-Event-ID if the connection drops. Made by `AdminClient.Events.subscribe()`;
/// `cancel()` closes it (so does releasing it).
public final class AdminEventSubscription: Sendable {
    static let streamName = "admin/events"

    private struct Waiter {
        let kind: AdminEvent.Kind?
        let predicate: @Sendable (AdminEvent) -> Bool
        let continuation: CheckedContinuation<AdminEvent, any Error>
    }

    private struct State {
        var received: [AdminEvent] = []
        /// Where the next `next` starts looking: past the last event one returned.
        var cursor = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
        /// Waits whose time ran out before they were registered.
        var timedOut: Set<UInt64> = []
    }

    private let source: EventSource
    private let state = LockedValue(State())

    /// - Parameter lastEventID: the feed's id to resume after; nil or "" to start with
    ///   everything the feed holds (its last 1,000 events).
    init(http: KitHTTP, lastEventID: String?) {
        let url = http.baseURL.appendingPathComponent("__admin/events")
        let configuration = EventSourceConfiguration(
            policy: ReconnectionPolicy(initialDelay: .milliseconds(100), jitter: 0), headers: http.headers,
            lastEventID: lastEventID)
        source = EventSource(url: url, configuration: configuration)
        let (source, state) = (source, state)
        Task {
            do {
                for try await event in source.events {
                    guard let event = AdminEvent(event) else { continue }
                    Self.receive(event, in: state)
                }
            } catch {}
        }
        source.start()
    }

    deinit { source.stop() }

    /// Every event received so far, in order.
    public var received: [AdminEvent] { state.withLock { $0.received } }

    /// Stops following the feed.
    public func cancel() { source.stop() }

    /// The next event of `kind` (any kind when nil) that `predicate` accepts, after the one
    /// the previous `next` returned: at once if it has arrived already, else as soon as it
    /// does. Throws `AdminEventTimeout` when none comes within `timeout` (scaled by `TestTiming`).
    @discardableResult
    public func next(
        _ kind: AdminEvent.Kind? = nil, timeout: Duration = .seconds(10),
        where predicate: @escaping @Sendable (AdminEvent) -> Bool = { _ in true }
    ) async throws -> AdminEvent {
        let limit = TestTiming.scaled(timeout)
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task { [state] in
            try await Task.sleep(for: limit)
            let (waiter, seen) = state.withLock { state in
                let waiter = state.waiters.removeValue(forKey: id)
                if waiter == nil { state.timedOut.insert(id) }
                return (waiter, state.received)
            }
            waiter?.continuation.resume(throwing: AdminEventTimeout(kind: kind, timeout: limit, seen: seen))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let waiter = Waiter(kind: kind, predicate: predicate, continuation: continuation)
                let found = state.withLock { state -> Result<AdminEvent, any Error>? in
                    if let match = Self.match(waiter, in: &state) { return .success(match) }
                    if state.timedOut.remove(id) != nil {
                        return .failure(AdminEventTimeout(kind: kind, timeout: limit, seen: state.received))
                    }
                    state.waiters[id] = waiter
                    return nil
                }
                if let found { continuation.resume(with: found) }
            }
        } onCancel: { [state] in
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The first event from the cursor on that `waiter` takes; moves the cursor past it.
    private static func match(_ waiter: Waiter, in state: inout State) -> AdminEvent? {
        for index in state.cursor..<state.received.count {
            let event = state.received[index]
            if waiter.kind.map({ $0 == event.kind }) ?? true, waiter.predicate(event) {
                state.cursor = index + 1
                return event
            }
        }
        return nil
    }

    /// Keeps `event` and hands it to the first waiter that takes it.
    private static func receive(_ event: AdminEvent, in state: LockedValue<State>) {
        let taken = state.withLock { state -> (Waiter, AdminEvent)? in
            state.received.append(event)
            for (id, waiter) in state.waiters.sorted(by: { $0.key < $1.key }) {
                if let match = match(waiter, in: &state) {
                    state.waiters[id] = nil
                    return (waiter, match)
                }
            }
            return nil
        }
        taken.map { $0.0.continuation.resume(returning: $0.1) }
    }
}
