import Dispatch
import MockBackendHTTP
import ServerSentEvents

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a stream behaves toward its subscribers.
public struct EventStreamSettings: Sendable {
    /// Whether heartbeat comments are sent (the user-info stream has none, like its real counterpart).
    public var heartbeat = true
    /// A `retry:` sent to every subscriber on connect, in milliseconds.
    public var retry: Int?
    /// A comment sent first on every connection, e.g. `connection established`.
    public var greeting: String?
    /// Events kept for replay; nil takes the registry's default (1,000 unless the scenario
    /// says otherwise).
    public var retention: Int?

    public init(heartbeat: Bool = true, retry: Int? = nil, greeting: String? = nil, retention: Int? = nil) {
        self.heartbeat = heartbeat
        self.retry = retry
        self.greeting = greeting
        self.retention = retention
    }
}

/// What `GET /__admin/streams` shows of one stream.
public struct EventStreamSnapshot: Codable, Sendable, Equatable {
    public struct Subscriber: Codable, Sendable, Equatable {
        public var connection: UInt64
        public var record: Int
        public var connectedAt: String
        public var lastEventId: String?
        public var deliveredCount: Int
    }

    public var name: String
    public var lastEventId: String?
    public var eventCount: Int
    public var retainedCount: Int
    public var finished: Bool
    public var retry: Int?
    public var heartbeat: Bool
    public var subscribers: [Subscriber]
}

/// A named event stream: an event log and the connections subscribed to it.
///
/// Invariant: publishing, subscribing and finishing happen under one lock, so a subscriber
/// gets its replay and then every later event exactly once: nothing falls between the
/// replay and the live events, and nothing is in both. Each event is encoded and framed
/// once, whatever the number of subscribers, and goes out as one queued block per event
/// loop (`BroadcastGroup`); what each subscriber got is counted lazily (`DeliveryLedger`),
/// so a publish does no work per subscriber on the publishing thread.
public final class EventStream: Sendable {
    private struct Subscriber {
        let writer: ResponseBodyWriter
        let record: StreamConnectionRecord
    }

    private struct State {
        var log: EventLog
        var subscribers: [UInt64: Subscriber] = [:]
        /// The subscribers' writers, grouped by event loop.
        var broadcast = BroadcastGroup()
        var ledger = DeliveryLedger()
        var finished = false
        var retry: Int?
    }

    public let name: String
    public let settings: EventStreamSettings
    private let journal: StreamJournal
    private let state: LockedValue<State>
    private static let heartbeatBytes = PreparedBodyPart(SSEEncoder.comment("keep-alive"))

    init(name: String, settings: EventStreamSettings, defaultRetention: Int, journal: StreamJournal) {
        self.name = name
        self.settings = settings
        self.journal = journal
        state = LockedValue(
            State(log: EventLog(retention: settings.retention ?? defaultRetention), retry: settings.retry))
    }

    /// Logs `event` and sends it to every subscriber. With `retry`, the `retry:` field goes
    /// with it and becomes the stream's advertised reconnection time.
    @discardableResult
    public func publish(_ event: ServerSentEvent, retry: Int? = nil) -> LoggedEvent {
        state.withLock { state in
            let logged = state.log.append(event, retry: retry)
            if let retry { state.retry = retry }
            state.broadcast.write(PreparedBodyPart(logged.bytes))
            state.ledger.logged(logged)
            return logged
        }
    }

    /// Logs copies of `event`, each with its own id (the first with `retry`), until `count`
    /// are logged or their bytes reach `byteLimit`, and sends them to every subscriber as
    /// one write. Then runs `next` on `queue` once every subscriber not in `excluded` has
    /// taken them down to `threshold` unsent bytes (see `BroadcastGroup.whenDrained`).
    /// Returns how many were logged and the last one.
    func publishBatch(
        of event: ServerSentEvent, count: Int, retry: Int?, byteLimit: Int,
        thenWhenDrainedTo threshold: Int, excluding excluded: Set<UInt64>, patience: Duration,
        on queue: DispatchQueue, next: @escaping @Sendable (_ laggards: Set<UInt64>) -> Void
    ) -> (count: Int, last: LoggedEvent?) {
        state.withLock { state in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(byteLimit + 512)
            var last: LoggedEvent?
            var logged = 0
            while logged < count, bytes.count < byteLimit {
                let entry = state.log.append(event, retry: logged == 0 ? retry : nil)
                if logged == 0, let retry { state.retry = retry }
                bytes += entry.bytes
                state.ledger.logged(entry)
                last = entry
                logged += 1
            }
            state.broadcast.write(PreparedBodyPart(bytes))
            state.broadcast.whenDrained(
                toAtMost: threshold, excluding: excluded, patience: patience, on: queue, next)
            return (logged, last)
        }
    }

    /// The smallest unsent-bytes bound among the subscribers' connections; nil without any.
    var subscribersUnsentLimit: Int? { state.withLock { $0.broadcast.unsentLimit } }

    /// Sends `event` to one connection only, outside the log (it is not replayed).
    /// False when no subscriber is on that connection.
    public func send(_ event: ServerSentEvent, retry: Int? = nil, toConnection connection: UInt64) -> Bool {
        state.withLock { state in
            guard let subscriber = state.subscribers[connection] else { return false }
            subscriber.writer.write(SSEEncoder.encode(event, retry: retry))
            if let id = event.id { state.ledger.sentAlone(id: id, to: connection, at: state.log.lastSequence) }
            return true
        }
    }

    /// Sends a bare `retry:` to every subscriber (or one connection) and makes it the
    /// advertised reconnection time.
    @discardableResult
    public func advertiseRetry(_ milliseconds: Int, toConnection connection: UInt64? = nil) -> Int {
        state.withLock { state in
            if connection == nil { state.retry = milliseconds }
            let bytes = PreparedBodyPart(SSEEncoder.retry(milliseconds: milliseconds))
            guard let connection else {
                state.broadcast.write(bytes)
                return state.subscribers.count
            }
            guard let subscriber = state.subscribers[connection] else { return 0 }
            subscriber.writer.write(bytes)
            return 1
        }
    }

    /// Ends the stream: subscribers get what is queued and then a clean end; later
    /// connections get the history after their Last-Event-ID, or 204 if there is none.
    public func finish() {
        let writers = state.withLock { state -> [ResponseBodyWriter] in
            state.finished = true
            return state.subscribers.values.map(\.writer)
        }
        for writer in writers { writer.finish() }
    }

    /// Drops every subscriber's connection (or one), as a network failure would.
    /// Returns how many were dropped.
    @discardableResult
    public func disconnect(connection: UInt64? = nil, reset: Bool = false) -> Int {
        // Unsubscribed here, not when the connection has closed: the close takes a hop onto
        // the connection's loop, and an event published in between would otherwise be
        // counted in the journal as delivered to a connection that never gets it.
        let writers = state.withLock { state in
            let leaving = state.subscribers.values.map(\.writer).filter {
                connection == nil || $0.connectionID == connection
            }
            for writer in leaving {
                state.subscribers[writer.connectionID] = nil
                state.subscribers.shrinkIfSparse()
                state.broadcast.remove(writer)
                state.ledger.close(writer.connectionID, at: state.log.lastSequence)
            }
            return leaving
        }
        for writer in writers { writer.abort(reset: reset) }
        return writers.count
    }

    /// How many connections are subscribed now.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Whether the stream has finished.
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Whether a client that sent `lastEventID` would get nothing: the stream is finished
    /// and nothing follows that id. Such a client is answered 204, which stops EventSource.
    func hasNothingAfter(_ lastEventID: String?) -> Bool {
        state.withLock { state in
            state.finished && !state.log.hasEvents(after: lastEventID)
        }
    }

    /// Sends the heartbeat comment to every subscriber.
    func sendHeartbeat() {
        guard settings.heartbeat else { return }
        state.withLock { state in state.broadcast.write(Self.heartbeatBytes) }
    }

    /// Subscribes a new connection: greeting, `retry:`, padding, the replay its
    /// Last-Event-ID asks for, then live events until it or the stream ends. With `events`,
    /// the connect and the disconnect are published there, except on the feed's own stream
    /// (announcing its own subscribers would feed it back into itself).
    func attach(
        _ writer: ResponseBodyWriter, request: HTTPRequest, lastEventID: String?, padding: Int,
        events: AdminEventFeed? = nil
    ) {
        let record = journal.open(stream: name, request: request, lastEventID: lastEventID)
        let feed = events.flatMap { $0.stream === self ? nil : $0 }
        let connection = writer.connectionID
        let finished = state.withLock { state -> Bool in
            if padding > 0 { writer.write(SSEEncoder.padding(size: padding)) }
            if let greeting = settings.greeting { writer.write(SSEEncoder.comment(greeting)) }
            if let retry = state.retry { writer.write(SSEEncoder.retry(milliseconds: retry)) }
            let replay = state.log.replay(after: lastEventID)
            switch replay {
            case .expired(let events):
                let oldest = events.first?.wireID ?? ""
                let data =
                    #"{"reason":"retention","lastEventId":"\#(Self.jsonEscaped(lastEventID ?? ""))","#
                    + #""oldestRetainedId":"\#(Self.jsonEscaped(oldest))"}"#
                writer.write(SSEEncoder.encode(ServerSentEvent(type: "reset", data: data)))
            case .unknown:
                writer.write(
                    SSEEncoder.comment(
                        "Last-Event-ID \(lastEventID ?? "") was never issued by this stream; replaying from the start"))
            case .everything, .after:
                break
            }
            for event in replay.events { writer.write(event.bytes) }
            record.noteDelivered(count: replay.events.count, ids: replay.events.lazy.map(\.wireID))
            if !state.finished {
                state.subscribers[connection] = Subscriber(writer: writer, record: record)
                state.broadcast.insert(writer)
                state.ledger.open(connection, record: record, at: state.log.lastSequence)
            }
            return state.finished
        }
        if !finished {
            record.settlingLiveDeliveries { [weak self] in self?.settleDeliveries(of: connection, writer: writer) }
        }
        feed?.publishConnected(record.snapshot)
        if finished {
            writer.finish()
            record.end(reason: StreamEndReason.finished.description, advertisedRetry: state.current.retry)
            feed?.publishDisconnected(record.snapshot)
            return
        }
        writer.onClose { [weak self] reason in
            guard let self else { return }
            let retry = state.withLock { state -> Int? in
                if state.subscribers[connection]?.writer === writer {
                    state.subscribers[connection] = nil
                    state.subscribers.shrinkIfSparse()
                    state.broadcast.remove(writer)
                    state.ledger.close(connection, at: state.log.lastSequence)
                }
                return state.retry
            }
            record.end(reason: reason.description, advertisedRetry: retry)
            feed?.publishDisconnected(record.snapshot)
        }
    }

    /// Counts what the subscriber on `connection` got up to now into its record.
    private func settleDeliveries(of connection: UInt64, writer: ResponseBodyWriter) {
        state.withLock { state in
            guard state.subscribers[connection]?.writer === writer else { return }
            state.ledger.settle(connection, at: state.log.lastSequence)
        }
    }

    public var snapshot: EventStreamSnapshot {
        state.withLock { state in
            state.ledger.settleAll(at: state.log.lastSequence)
            return EventStreamSnapshot(
                name: name, lastEventId: state.log.lastWireID, eventCount: state.log.lastSequence,
                retainedCount: state.log.retainedCount, finished: state.finished, retry: state.retry,
                heartbeat: settings.heartbeat,
                subscribers: state.subscribers.values.map { subscriber in
                    let record = subscriber.record.notedSnapshot
                    return .init(
                        connection: subscriber.writer.connectionID, record: record.id, connectedAt: record.connectedAt,
                        lastEventId: record.lastEventId, deliveredCount: record.deliveredCount)
                }.sorted { $0.connection < $1.connection })
        }
    }

    private static func jsonEscaped(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}

extension AdminEventFeed {
    /// `stream.connected`, from the journal's record of the connection.
    fileprivate func publishConnected(_ record: StreamConnectionSnapshot) {
        publish(
            .streamConnected,
            [
                "stream": .string(record.stream), "connection": .integer(Int(clamping: record.connection)),
                "lastEventId": record.lastEventId.map(JSONValue.string) ?? .null, "client": .string(record.client),
            ])
    }

    /// `stream.disconnected`, once the record holds the end.
    fileprivate func publishDisconnected(_ record: StreamConnectionSnapshot) {
        publish(
            .streamDisconnected,
            [
                "stream": .string(record.stream), "connection": .integer(Int(clamping: record.connection)),
                "reason": .string(record.endReason ?? StreamEndReason.connectionClosed.description),
                "delivered": .integer(record.deliveredCount),
            ])
    }
}
