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

    /// Subscribes a new connection: padding, greeting, `retry:`, the replay its
    /// Last-Event-ID asks for (`settings.replay`), then live events until it or the stream
    /// ends. With `audience`, the connection belongs to that audience (a player session).
    /// With `events`, the connect and the disconnect are published there, except on the
    /// feed's own stream (announcing its own subscribers would feed it back into itself).
    func attach(
        _ writer: ResponseBodyWriter, request: HTTPRequest, lastEventID: String?, padding: Int,
        audience: String? = nil, events: AdminEventFeed? = nil
    ) {
        let record = journal.open(stream: name, request: request, lastEventID: lastEventID)
        let feed = events.flatMap { $0.stream === self ? nil : $0 }
        let connection = writer.connectionID
        let now = clock.now
        let replaying = state.withLock { state -> Bool in
            if padding > 0 { writer.write(SSEEncoder.padding(size: padding)) }
            if let greeting = settings.greeting { writer.write(SSEEncoder.comment(greeting)) }
            if let retry = state.retry { writer.write(SSEEncoder.retry(milliseconds: retry)) }
            if let audience, let end = state.audiences[audience]?.end {
                // The audience ended between the request's check and now: its last event,
                // then the end, as its other connections got them.
                writer.write(end.event.bytes)
                record.noteDelivered(count: 1, ids: CollectionOfOne(end.event.wireID))
                record.noteEnding(end.cause)
                writer.finish()
                return false
            }
            let start = replayStart(for: lastEventID, audience: audience, writer: writer, in: state)
            state.subscribers[connection] = Subscriber(
                writer: writer, record: record, audience: audience, activeSince: now, replayFrom: start)
            return writeReplayBatch(of: connection, in: &state)
        }
        feed?.publishConnected(record.snapshot)
        // After the subscriber is in: a connection that has closed already runs this at once.
        // The end is recorded even when the stream has gone (a reset forgets it first).
        writer.onClose { [weak self] reason in
            let retry = self?.state.withLock { state -> Int? in
                if let subscriber = state.subscribers[connection], subscriber.writer === writer {
                    Self.unsubscribe(subscriber, from: &state)
                }
                return state.retry
            }
            record.end(reason: reason, advertisedRetry: retry)
            feed?.publishDisconnected(record.snapshot)
        }
        if replaying { continueReplay(of: connection, writer: writer) }
    }

    /// The sequence a new connection's replay starts from (past the log's end: none),
    /// writing the `reset` event or comment its Last-Event-ID calls for.
    private func replayStart(for lastEventID: String?, audience: String?, writer: ResponseBodyWriter, in state: State)
        -> Int
    {
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
            writer.write(Self.resetEvent(lastEventID: lastEventID, oldest: log))
            return log.oldestSequence
        case (.deltas, .expired):
            // Issued but past retention: the reset, then what is retained of the audience's own.
            guard let number = Int(lastEventID ?? ""), number > audienceStart else { return nothing }
            writer.write(Self.resetEvent(lastEventID: lastEventID, oldest: log))
            return max(log.oldestSequence, audienceStart + 1)
        case (.history, .unknown):
            writer.write(
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
            subscriber.writer.write(Self.resetEvent(lastEventID: nil, oldest: state.log))
            start = state.log.oldestSequence
        }
        let (batch, next) = state.log.events(
            from: start, visibleTo: subscriber.audience, byteLimit: Self.replayBatchBytes)
        if !batch.isEmpty {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(batch.reduce(0) { $0 + $1.bytes.count })
            for event in batch { bytes += event.bytes }
            subscriber.writer.write(bytes)
            subscriber.record.noteDelivered(count: batch.count, ids: batch.lazy.map(\.wireID))
        }
        guard next > state.log.lastSequence else {
            subscriber.replayFrom = next
            state.subscribers[connection] = subscriber
            return true
        }
        subscriber.replayFrom = nil
        if let audience = subscriber.audience, let end = state.audiences[audience]?.end {
            // Its audience's last event was in the replay: the end follows it.
            state.subscribers[connection] = nil
            subscriber.record.noteEnding(end.cause)
            subscriber.writer.finish()
        } else if state.finished {
            state.subscribers[connection] = nil
            subscriber.writer.finish()
        } else {
            state.subscribers[connection] = subscriber
            state.broadcast.insert(subscriber.writer)
            state.ledger.open(connection, record: subscriber.record, at: state.log.lastSequence)
            let writer = subscriber.writer
            subscriber.record.settlingLiveDeliveries { [weak self] in
                self?.settleDeliveries(of: connection, writer: writer)
            }
        }
        return false
    }

    /// Writes the rest of a replay batch by batch, each once the connection has taken the
    /// one before down to `replayLowWater`.
    private func continueReplay(of connection: UInt64, writer: ResponseBodyWriter) {
        writer.whenDrained(toAtMost: Self.replayLowWater) { [weak self] in
            guard let self else { return }
            let more = state.withLock { state -> Bool in
                guard state.subscribers[connection]?.writer === writer else { return false }
                return writeReplayBatch(of: connection, in: &state)
            }
            if more { continueReplay(of: connection, writer: writer) }
        }
    }

    /// Takes a subscriber out of the stream's state; it gets nothing more from it.
    static func unsubscribe(_ subscriber: Subscriber, from state: inout State) {
        let connection = subscriber.writer.connectionID
        state.subscribers[connection] = nil
        state.subscribers.shrinkIfSparse()
        if subscriber.replayFrom == nil {
            state.broadcast.remove(subscriber.writer)
            state.ledger.close(connection, at: state.log.lastSequence)
        }
    }

    /// Counts what the live subscriber on `connection` got up to now into its record.
    private func settleDeliveries(of connection: UInt64, writer: ResponseBodyWriter) {
        state.withLock { state in
            guard let subscriber = state.subscribers[connection], subscriber.writer === writer,
                subscriber.replayFrom == nil
            else { return }
            state.ledger.settle(connection, at: state.log.lastSequence)
        }
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

extension AdminEventFeed {
    /// `stream.connected`, from the journal's record of the connection.
    func publishConnected(_ record: StreamConnectionSnapshot) {
        publish(
            .streamConnected,
            [
                "stream": .string(record.stream), "connection": .integer(Int(clamping: record.connection)),
                "lastEventId": record.lastEventId.map(JSONValue.string) ?? .null, "client": .string(record.client),
            ])
    }

    /// `stream.disconnected`, once the record holds the end.
    func publishDisconnected(_ record: StreamConnectionSnapshot) {
        publish(
            .streamDisconnected,
            [
                "stream": .string(record.stream), "connection": .integer(Int(clamping: record.connection)),
                "reason": .string(record.endReason ?? StreamEndCause.connectionClosed.rawValue),
                "delivered": .integer(record.deliveredCount),
            ])
    }
}
