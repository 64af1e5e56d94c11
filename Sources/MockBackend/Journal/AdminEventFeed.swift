import MockBackendHTTP
import MockBackendSupport
import ServerSentEvents

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The live feed of what happens in the mock, `GET /__admin/events`: requests, logins,
/// session expiries, faults fired, stream connects and disconnects. The dashboard and
/// tests subscribe to it. Each event is an `AdminFeedEvent`: its kind is the `event:` type,
/// its data a JSON object with `ts` (ISO 8601) and the details.
///
/// Request events, one per request, are encoded only when somebody may read them: while
/// the feed has no subscriber they wait as plain values (`RequestEvent`) and are logged,
/// in order and with the ids they would have had, before anything else is published and
/// before anybody reads the feed's stream (`flushDeferred`). So a request costs no JSON,
/// no date formatting and no log entry when nobody watches, and a subscriber that comes
/// later still finds the same history.
package final class AdminEventFeed: Sendable {
    /// Request events waiting to be logged. Invariant: the oldest `dropped` of them were
    /// recorded and have already left what the log would retain, so only their ids count.
    private struct Deferred {
        var requests: [RequestEvent] = []
        var dropped = 0
    }

    /// The feed's own stream, `admin/events`.
    package let stream: EventStream
    private let deferred = LockedValue(Deferred())
    /// Subscribers of the feed, counted from just before their subscription until their
    /// stream ends. A leaf lock: taken inside `deferred`, never the other way round.
    private let watchers = LockedValue(0)
    /// The events the feed's log keeps (fixed with the stream): read once, not under the
    /// stream's lock on every request.
    private let retention: Int

    package init(streams: EventStreamRegistry) {
        stream = streams.stream(named: "admin/events", settings: EventStreamSettings(heartbeat: true))
        retention = stream.retention
        streams.beforeReading { [weak self] in self?.flushDeferred() }
    }

    /// Publishes one event with a `ts`, after the request events waiting.
    package func publish(_ event: AdminFeedEvent) {
        deferred.withLock { deferred in
            log(&deferred)
            stream.publish(Self.event(event, at: Date()))
        }
    }

    /// Publishes a `request` event now if the feed has a subscriber, else keeps it for later.
    func publish(_ request: RequestEvent) {
        deferred.withLock { deferred in
            if watchers.current == 0 {
                deferred.requests.append(request)
                // Beyond twice what the log retains, the oldest half could never be read.
                if deferred.requests.count >= 2 * retention {
                    deferred.requests.removeFirst(retention)
                    deferred.dropped += retention
                }
                return
            }
            log(&deferred)
            stream.publish(request.event)
        }
    }

    /// Logs the request events waiting, so that the stream holds everything published.
    /// Anything that reads the feed's stream (a subscription, a listing) calls this first.
    package func flushDeferred() {
        deferred.withLock { log(&$0) }
    }

    /// How many request events wait to be logged, those past retention included.
    package var waitingRequestEvents: Int {
        deferred.withLock { $0.dropped + $0.requests.count }
    }

    /// Counts a new subscriber and logs what waits, so it finds the whole history and gets
    /// every later request event live. `stopWatching` undoes the count.
    func startWatching() {
        watchers.withLock { $0 += 1 }
        flushDeferred()
    }

    func stopWatching() {
        watchers.withLock { $0 -= 1 }
    }

    private func log(_ deferred: inout Deferred) {
        guard deferred.dropped > 0 || !deferred.requests.isEmpty else { return }
        var dropped = deferred.dropped
        var requests = deferred.requests[...]
        if requests.count > retention {
            dropped += requests.count - retention
            requests = requests.suffix(retention)
        }
        if dropped > 0 { stream.skipSequences(dropped) }
        for request in requests { stream.publish(request.event) }
        deferred = Deferred()
    }

    static func event(_ event: AdminFeedEvent, at date: Date) -> ServerSentEvent {
        var object = event.fields
        object["ts"] = .string(Timestamp.iso8601(date))
        let data = JSONValue.object(object).serialized.map { String(decoding: $0, as: UTF8.self) }
        return ServerSentEvent(type: event.kind.rawValue, data: data ?? "{}")
    }
}

/// A `request` event of the admin feed, kept as a value until it is logged.
struct RequestEvent: Sendable {
    let request: AdminFeedEvent.Request
    let at: Date

    var event: ServerSentEvent {
        AdminEventFeed.event(.request(request), at: at)
    }
}
