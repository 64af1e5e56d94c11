import Dispatch
import MockBackendHTTP
import MockBackendSupport
import ServerSentEvents

/// A named event stream: an event log and the connections subscribed to it.
///
/// Invariants:
/// - Publishing, subscribing and ending happen under one lock, so a subscriber gets its
///   replay and then every later event exactly once: nothing falls between the replay and
///   the live events, and nothing is in both.
/// - A subscriber is either catching up or live. A catching-up subscriber is written its
///   replay from the log in batches at its reader's pace (`EventStream+Subscribing.swift`)
///   and is in no broadcast; once the batches reach the end of the log it joins the
///   broadcast in the same critical section. So a backlog is never queued whole, and the
///   unsent-bytes bound of the connection applies to live bytes.
/// - Each live event is encoded and framed once, whatever the number of subscribers, and
///   goes out as one piece of work per executor (`SinkGroup`: one queued block per event
///   loop); what each live subscriber was sent is noted lazily (`DeliveryLedger`), so a
///   publish does no work per subscriber on the publishing thread. A subscriber is a sink
///   (`StreamSink`): a response body, a WebSocket, or a test's recording sink.
/// - A subscriber may belong to an audience (the connections of one player session). An
///   audience's end is logged for that audience only and ends its subscribers
///   (`EventStream+Ending.swift`); a connection of an audience that has ended gets that
///   last event and the end, however close to the end it arrives.
package final class EventStream: Sendable {
    struct Subscriber {
        /// Where a subscriber is in its life.
        enum Phase: Equatable {
            /// Being replayed what it missed, from this sequence on; in no broadcast.
            case catchingUp(from: Int)
            /// In the broadcast: it gets every event as it is published.
            case live
            /// Asked to end (its stream finished, an admin disconnected it, it was idle, its
            /// audience ended): it gets nothing more, and stays a subscriber until its
            /// connection has ended, so a connection that never takes its end (blackholed)
            /// can still be disconnected, and is listed while it is open.
            case ending
        }

        let sink: any StreamSink
        let record: StreamConnectionRecord
        /// The audience it belongs to (a player session id), if any.
        let audience: String?
        /// Simulated time of its last event sent to it alone, or of its connect: with the
        /// stream's last event, what the idle close measures from.
        var activeSince: Duration
        var phase: Phase
        /// The stream's `retry:`, not sent yet: it goes with the first event of the replay,
        /// in that event's block, or alone once the replay turns out to have none.
        var retryOwed: Int?

        /// The sequence its replay goes on from, while it catches up.
        var replayFrom: Int? {
            if case .catchingUp(let sequence) = phase { return sequence }
            return nil
        }
    }

    /// One audience: where it began in the log, and its last event once it has ended.
    struct Audience {
        /// The last sequence logged before the audience began; later events are its own.
        let start: Int
        var end: (event: LoggedEvent, cause: StreamEndCause)?
    }

    struct State {
        var log: EventLog
        var subscribers: [UInt64: Subscriber] = [:]
        /// The live subscribers' sinks, grouped by executor.
        var broadcast = SinkGroup()
        var ledger = DeliveryLedger()
        var finished = false
        var retry: Int?
        var audiences: [String: Audience] = [:]
        /// Ended audiences, oldest first, for the bound on how many are kept.
        var endedAudiences: [String] = []
        /// Simulated time of the last event published to everyone.
        var lastEventAt: Duration?
    }

    package let name: String
    package let settings: EventStreamSettings
    let journal: StreamJournal
    let clock: SimulationClock
    /// Everything that changes, under the stream's one lock.
    let state: LockedValue<State>
    /// Relayed subscribers being attached now (`EventStreamRegistry.withRelayStream`):
    /// while any is, the registry keeps the stream even without subscribers.
    let relayReservations = LockedValue(0)
    private static let heartbeat = StreamPayload(body: PreparedBodyPart(SSEEncoder.comment("keep-alive")))

    init(
        name: String, settings: EventStreamSettings, defaultRetention: Int, journal: StreamJournal,
        clock: SimulationClock
    ) {
        self.name = name
        self.settings = settings
        self.journal = journal
        self.clock = clock
        state = LockedValue(
            State(log: EventLog(retention: settings.retention ?? defaultRetention), retry: settings.retry))
    }

    /// Logs `event` and sends it to every live subscriber (catching-up ones read it from
    /// the log). With `retry`, the `retry:` field goes with it and becomes the stream's
    /// advertised reconnection time.
    @discardableResult
    package func publish(_ event: StreamEvent, retry: Int? = nil) -> LoggedEvent {
        let now = clock.now
        return state.withLock { state in
            let logged = state.log.append(event, retry: retry, messages: settings.messages)
            if let retry { state.retry = retry }
            state.broadcast.send(Self.payload(of: [logged], bytes: logged.bytes, for: state.broadcast))
            state.ledger.logged(logged)
            state.lastEventAt = now
            return logged
        }
    }

    /// Publishes a wire event: logs it and sends it to every subscriber. The way the
    /// backends put their events on a stream, so each frame is the shared type the client
    /// decodes (`MockBackendAPI`).
    @discardableResult
    package func publish(_ event: some WireEvent, retry: Int? = nil) -> LoggedEvent {
        publish(StreamEvent(event), retry: retry)
    }

    /// Publishes a bare frame (`StreamEvent.init(_:)`).
    @discardableResult
    package func publish(_ frame: ServerSentEvent, retry: Int? = nil) -> LoggedEvent {
        publish(StreamEvent(frame), retry: retry)
    }

    /// Logged events as one payload, in the forms `group` takes (`bytes`: their frames
    /// joined, already at hand).
    static func payload(of events: [LoggedEvent], bytes: [UInt8], for group: SinkGroup) -> StreamPayload {
        StreamPayload(
            body: group.takes(.eventStream) ? PreparedBodyPart(bytes) : nil,
            messages: group.takes(.webSocket) ? messages(of: events) : nil, events: events.count)
    }

    /// The WebSocket messages of logged events (those logged with one).
    static func messages(of events: [LoggedEvent]) -> PreparedWebSocketMessages {
        PreparedWebSocketMessages(events.compactMap { $0.message.map(PreparedWebSocketMessage.init(utf8Text:)) })
    }

    /// Logs copies of `event`, each with its own id (the first with `retry`), until `count`
    /// are logged or their bytes reach `byteLimit`, and sends them to every live subscriber
    /// as one write (on a WebSocket, a message each, framed once). Then runs `next` on
    /// `scheduler` once every subscriber not in `excluded` has taken them down to `threshold`
    /// unsent bytes (see `SinkGroup.whenDrained`). Returns how many were logged and the
    /// last one.
    func publishBatch(
        of event: StreamEvent, count: Int, retry: Int?, byteLimit: Int,
        thenWhenDrainedTo threshold: Int, excluding excluded: Set<UInt64>, patience: Duration,
        on scheduler: any StreamScheduler, next: @escaping @Sendable (_ laggards: Set<UInt64>) -> Void
    ) -> (count: Int, last: LoggedEvent?) {
        let now = clock.now
        return state.withLock { state in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(byteLimit + 512)
            var last: LoggedEvent?
            var logged = 0
            // Every copy is the same message (a WebSocket message carries no id): encoded once.
            let message = settings.messages ? event.message() : nil
            while logged < count, bytes.count < byteLimit {
                let entry = state.log.append(
                    event, retry: logged == 0 ? retry : nil, messages: settings.messages, message: message)
                if logged == 0, let retry { state.retry = retry }
                bytes += entry.bytes
                state.ledger.logged(entry)
                last = entry
                logged += 1
            }
            state.lastEventAt = now
            let group = state.broadcast
            if logged > 0 {
                // Every copy is the same message (a WebSocket message carries no id): framed once.
                let message = last?.message.map(PreparedWebSocketMessage.init(utf8Text:))
                group.send(
                    StreamPayload(
                        body: group.takes(.eventStream) ? PreparedBodyPart(bytes) : nil,
                        messages: group.takes(.webSocket)
                            ? PreparedWebSocketMessages(Array(repeating: message, count: logged).compactMap { $0 })
                            : nil,
                        events: logged))
            }
            group.whenDrained(toAtMost: threshold, excluding: excluded, patience: patience, on: scheduler, next)
            return (logged, last)
        }
    }

    /// The smallest unsent-bytes bound among the subscribers' connections; nil without any.
    var subscribersUnsentLimit: Int? {
        state.withLock { $0.broadcast.unsentLimit }
    }

    /// Sends `event` to one connection only, outside the log (it is not replayed).
    /// False when no subscriber is on that connection.
    package func send(_ event: StreamEvent, retry: Int? = nil, toConnection connection: UInt64) -> Bool {
        let now = clock.now
        return state.withLock { state in
            guard var subscriber = state.subscribers[connection], subscriber.phase != .ending else { return false }
            let sink = subscriber.sink
            sink.write(
                StreamPayload(
                    body: sink.framing == .eventStream
                        ? PreparedBodyPart(unframed: SSEEncoder.encode(event.frame, retry: retry)) : nil,
                    messages: sink.framing == .webSocket
                        ? PreparedWebSocketMessages([PreparedWebSocketMessage(utf8Text: event.message())]) : nil,
                    events: 1))
            subscriber.activeSince = now
            state.subscribers[connection] = subscriber
            if subscriber.phase == .live {
                state.ledger.sentAlone(id: event.frame.id, to: connection, at: state.log.lastSequence)
            } else {
                subscriber.record.noteWritten(id: event.frame.id)
            }
            return true
        }
    }

    /// Sends a bare frame to one connection only (`send(_:retry:toConnection:)`).
    package func send(_ frame: ServerSentEvent, retry: Int? = nil, toConnection connection: UInt64) -> Bool {
        send(StreamEvent(frame), retry: retry, toConnection: connection)
    }

    /// Sends a bare `retry:` to every subscriber (or one connection) and makes it the
    /// advertised reconnection time.
    @discardableResult
    package func advertiseRetry(_ milliseconds: Int, toConnection connection: UInt64? = nil) -> Int {
        state.withLock { state in
            let bytes = SSEEncoder.retry(milliseconds: milliseconds)
            guard let connection else {
                state.retry = milliseconds
                state.broadcast.send(StreamPayload(body: PreparedBodyPart(bytes)))
                for subscriber in state.subscribers.values where subscriber.replayFrom != nil {
                    subscriber.sink.writeNotice(bytes)
                }
                return state.subscribers.values.filter { $0.phase != .ending }.count
            }
            guard let subscriber = state.subscribers[connection], subscriber.phase != .ending else { return 0 }
            subscriber.sink.writeNotice(bytes)
            return 1
        }
    }

    /// How many connections are subscribed now.
    package var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// How many events the log keeps for replay.
    var retention: Int { state.withLock { $0.log.retention } }

    /// Issues `count` ids whose events nobody received and the log no longer retains
    /// (`EventLog.skip`), for events published while nobody could read them.
    func skipSequences(_ count: Int) {
        state.withLock { $0.log.skip(count) }
    }

    /// Whether the stream has finished.
    package var isFinished: Bool { state.withLock { $0.finished } }

    /// Whether a client that sent `lastEventID` would get nothing: the stream is finished
    /// and nothing follows that id. Such a client is answered 204, which stops EventSource.
    func hasNothingAfter(_ lastEventID: String?) -> Bool {
        state.withLock { state in
            state.finished && !state.log.hasEvents(after: state.log.position(of: lastEventID))
        }
    }

    /// Sends the heartbeat comment to every live subscriber.
    func sendHeartbeat() {
        guard settings.heartbeat else { return }
        state.withLock { state in state.broadcast.send(Self.heartbeat) }
    }

    package var snapshot: EventStreamSnapshot {
        state.withLock { state in
            state.ledger.settleAll(at: state.log.lastSequence)
            return EventStreamSnapshot(
                name: name, lastEventId: state.log.lastWireID, eventCount: state.log.lastSequence,
                retainedCount: state.log.retainedCount, finished: state.finished, retry: state.retry,
                heartbeat: settings.heartbeat,
                subscribers: state.subscribers.values.map { subscriber in
                    let record = subscriber.record.notedSnapshot
                    return .init(
                        connection: subscriber.sink.connectionID, protocol: subscriber.sink.framing.protocolName,
                        record: record.id, connectedAt: record.connectedAt,
                        lastEventId: record.lastEventId, deliveredCount: record.deliveredCount,
                        catchingUp: subscriber.replayFrom != nil)
                }.sorted { $0.connection < $1.connection })
        }
    }
}
