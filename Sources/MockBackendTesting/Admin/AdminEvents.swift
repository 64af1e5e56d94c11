import Foundation
import MockBackend
import MockBackendClient

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
