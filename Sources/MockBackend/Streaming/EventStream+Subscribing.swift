import MockBackendHTTP
import ServerSentEvents

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension EventStream {
    /// Largest replay write, in bytes of events.
    static let replayBatchBytes = 64 * 1024
    /// The next replay write waits until the connection has this many unsent bytes or fewer.
    static let replayLowWater = 16 * 1024

    /// Subscribes a new event-stream connection: padding, greeting, the replay its
    /// Last-Event-ID asks for (`settings.replay`), then live events until it or the stream
    /// ends. The stream's `retry:` goes in the block of the first replayed event, so a
    /// reconnect does not get it alone and then again with the event that set it; with
    /// nothing to replay it goes alone, before any live event. A WebSocket sink (an
    /// import's V1 socket) gets no prelude, and every retained event, one message each (V1
    /// has no resume: a reconnect gets the whole history again); when the stream finishes,
    /// the closing handshake with 1000. With `audience`, the connection belongs to that
    /// audience (a player session). With `events`, the connect and the disconnect are
    /// published there, except on the feed's own stream (announcing its own subscribers
    /// would feed it back into itself).
    func attach(
        _ sink: any StreamSink, request: HTTPRequest, lastEventID: String?, padding: Int = 0,
        audience: String? = nil, events: AdminEventFeed? = nil
    ) {
        var prelude: [UInt8] = []
        if sink.framing == .eventStream {
            if padding > 0 { prelude += SSEEncoder.padding(size: padding) }
            if let greeting = settings.greeting { prelude += SSEEncoder.comment(greeting) }
        }
        let record = journal.open(
            stream: name, request: request, lastEventID: lastEventID, protocol: sink.framing.protocolName,
            deliveries: sink.deliveries)
        let feed = events.flatMap { $0.stream === self ? nil : $0 }
        let connection = sink.connectionID
        let now = clock.now
        let lastEventID = sink.framing == .eventStream ? lastEventID : nil
        let replaying = state.withLock { state -> Bool in
            let retry = sink.framing == .eventStream ? state.retry : nil
            if !prelude.isEmpty { sink.writeNotice(prelude) }
            if let audience, let end = state.audiences[audience]?.end {
                // The audience ended between the request's check and now: its last event,
                // then the end, as its other connections got them.
                sink.write([end.event], retry: retry)
                record.noteWritten(id: end.event.wireID)
                sink.nameEnd(record.noteEnding(end.cause).rawValue)
                sink.finish(.complete)
                return false
            }
            let start = replayStart(for: lastEventID, audience: audience, sink: sink, record: record, in: state)
            state.subscribers[connection] = Subscriber(
                sink: sink, record: record, audience: audience, activeSince: now, phase: .catchingUp(from: start),
                retryOwed: retry)
            return writeReplayBatch(of: connection, in: &state)
        }
        feed?.publishConnected(record.snapshot)
        endsWithItsSink(sink, record: record, feed: feed)
        if replaying { continueReplay(of: connection, sink: sink) }
    }

    /// Once `sink` has ended, it is no subscriber any more and its record ends. Called after
    /// the subscriber is in: a sink that has ended already runs this at once. The end is
    /// recorded even when the stream has gone (a reset forgets it first).
    func endsWithItsSink(
        _ sink: any StreamSink, record: StreamConnectionRecord, feed: AdminEventFeed?,
        then afterEnd: (@Sendable () -> Void)? = nil
    ) {
        let connection = sink.connectionID
        sink.onEnd { [weak self] reason in
            let retry = self?.state.withLock { state -> Int? in
                if let subscriber = state.subscribers[connection], subscriber.sink === sink {
                    Self.stopSending(to: subscriber, in: &state)
                    state.subscribers[connection] = nil
                    state.subscribers.shrinkIfSparse()
                }
                return state.retry
            }
            record.end(reason: reason, advertisedRetry: retry)
            feed?.publishDisconnected(record.snapshot)
            afterEnd?()
        }
    }

    /// The sequence a new connection's replay starts from (past the log's end: none),
    /// writing the `reset` event or comment its Last-Event-ID calls for.
    private func replayStart(
        for lastEventID: String?, audience: String?, sink: any StreamSink, record: StreamConnectionRecord,
        in state: State
    ) -> Int {
        let log = state.log
        let nothing = log.lastSequence + 1
        // For deltas, an audience's own events are those after it began.
        let audienceStart = audience.flatMap { state.audiences[$0]?.start } ?? 0
        switch (settings.replay, log.position(of: lastEventID)) {
        case (.history, .retained(let sequence)):
            return sequence + 1
        case (.deltas, .retained(let sequence)):
            return sequence > audienceStart ? sequence + 1 : nothing
        case (.history, .none):
            return log.oldestSequence
        case (.deltas, .none), (.deltas, .unknown):
            return nothing
        case (.history, .expired):
            Self.sendReset(lastEventID: lastEventID, oldest: log, to: sink, record: record)
            return log.oldestSequence
        case (.deltas, .expired):
            // Issued but past retention: what is retained of the audience's own, without a
            // notice (the backend has no such frame; each balance frame carries its
            // `afterAmount`, so the next one puts a client right).
            guard let number = Int(lastEventID ?? ""), number > audienceStart else { return nothing }
            return max(log.oldestSequence, audienceStart + 1)
        case (.history, .unknown):
            sink.writeNotice(
                SSEEncoder.comment(
                    "Last-Event-ID \(lastEventID ?? "") was never issued by this stream; replaying from the start"))
            return log.oldestSequence
        }
    }

    /// Writes the next batch of a catching-up subscriber's replay, as one write. When the
    /// batch reaches the end of the log the subscriber goes live (or ends, if its stream
    /// or audience has). Returns whether more remains to replay.
    func writeReplayBatch(of connection: UInt64, in state: inout State) -> Bool {
        guard var subscriber = state.subscribers[connection], var start = subscriber.replayFrom else { return false }
        if start < state.log.oldestSequence, start <= state.log.lastSequence {
            // Events it had not been sent yet left retention while it caught up.
            if settings.replay == .history {
                Self.sendReset(lastEventID: nil, oldest: state.log, to: subscriber.sink, record: subscriber.record)
            }
            start = state.log.oldestSequence
        }
        let (batch, next) = state.log.events(
            from: start, visibleTo: subscriber.audience, byteLimit: Self.replayBatchBytes)
        if !batch.isEmpty {
            subscriber.sink.write(batch, retry: subscriber.retryOwed)
            subscriber.retryOwed = nil
            subscriber.record.noteWritten(count: batch.count, ids: batch.lazy.map(\.wireID))
        }
        guard next > state.log.lastSequence else {
            subscriber.phase = .catchingUp(from: next)
            state.subscribers[connection] = subscriber
            return true
        }
        if let retry = subscriber.retryOwed {
            // Nothing was replayed to carry it.
            subscriber.sink.writeNotice(SSEEncoder.retry(milliseconds: retry))
            subscriber.retryOwed = nil
        }
        if let audience = subscriber.audience, let end = state.audiences[audience]?.end {
            // Its audience's last event was in the replay: the end follows it.
            subscriber.phase = .ending
            state.subscribers[connection] = subscriber
            subscriber.noteEnding(end.cause)
            subscriber.sink.finish(.complete)
        } else if state.finished {
            subscriber.phase = .ending
            state.subscribers[connection] = subscriber
            subscriber.noteEnding(.finished)
            subscriber.sink.finish(.complete)
        } else {
            subscriber.phase = .live
            state.subscribers[connection] = subscriber
            state.broadcast.insert(subscriber.sink)
            state.ledger.open(connection, record: subscriber.record, at: state.log.lastSequence)
            let sink = subscriber.sink
            subscriber.record.settlingLiveDeliveries { [weak self] in
                self?.settleDeliveries(of: connection, sink: sink)
            }
        }
        return false
    }

    /// Writes the rest of a replay batch by batch, each once the connection has taken the
    /// one before down to `replayLowWater`.
    private func continueReplay(of connection: UInt64, sink: any StreamSink) {
        sink.whenDrained(toAtMost: Self.replayLowWater) { [weak self] in
            guard let self else { return }
            let more = state.withLock { state -> Bool in
                guard let subscriber = state.subscribers[connection], subscriber.sink === sink,
                    subscriber.replayFrom != nil
                else { return false }
                return writeReplayBatch(of: connection, in: &state)
            }
            if more { continueReplay(of: connection, sink: sink) }
        }
    }

    /// Moves a subscriber to `.ending`: out of the broadcast (its written events noted up to
    /// now) and its replay stopped, so it gets nothing more from the stream. It stays
    /// among the subscribers until its connection ends (`attach`'s end handler).
    static func stopSending(to subscriber: Subscriber, in state: inout State) {
        let connection = subscriber.sink.connectionID
        if subscriber.phase == .live {
            state.broadcast.remove(subscriber.sink)
            state.ledger.close(connection, at: state.log.lastSequence)
        }
        var ending = subscriber
        ending.phase = .ending
        state.subscribers[connection] = ending
    }

    /// Counts what the live subscriber on `connection` got up to now into its record.
    func settleDeliveries(of connection: UInt64, sink: any StreamSink) {
        state.withLock { state in
            guard let subscriber = state.subscribers[connection], subscriber.sink === sink, subscriber.phase == .live
            else { return }
            state.ledger.settle(connection, at: state.log.lastSequence)
        }
    }

    /// Writes the `reset` notice (`resetEvent`) to an event-stream sink: one event, without
    /// an id.
    private static func sendReset(
        lastEventID: String?, oldest log: EventLog, to sink: any StreamSink, record: StreamConnectionRecord
    ) {
        guard sink.framing == .eventStream else { return }
        sink.writeNotice(resetEvent(lastEventID: lastEventID, oldest: log), events: 1)
        record.noteWritten(id: nil)
    }

    /// `event: reset`: the client's Last-Event-ID (or its place in a replay) has left
    /// retention; it should refetch by REST. The data names the oldest retained id.
    static func resetEvent(lastEventID: String?, oldest log: EventLog) -> [UInt8] {
        // Built in this order (reason first), as clients have seen it since the start.
        var data = #"{"reason":"retention","#
        if let lastEventID { data += #""lastEventId":\#(jsonString(lastEventID)),"# }
        data += #""oldestRetainedId":\#(jsonString(log.oldestWireID ?? ""))}"#
        return SSEEncoder.encode(ServerSentEvent(type: "reset", data: data))
    }

    private static func jsonString(_ text: String) -> String {
        (try? JSONCoding.encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? #""""#
    }
}
