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

    /// Subscribes a new event-stream connection: padding, greeting, `retry:`, the replay
    /// its Last-Event-ID asks for (`settings.replay`), then live events until it or the
    /// stream ends. With `audience`, the connection belongs to that audience (a player
    /// session). With `events`, the connect and the disconnect are published there, except
    /// on the feed's own stream (announcing its own subscribers would feed it back into
    /// itself).
    func attach(
        _ writer: ResponseBodyWriter, request: HTTPRequest, lastEventID: String?, padding: Int,
        audience: String? = nil, events: AdminEventFeed? = nil
    ) {
        var prelude: [UInt8] = []
        if padding > 0 { prelude += SSEEncoder.padding(size: padding) }
        if let greeting = settings.greeting { prelude += SSEEncoder.comment(greeting) }
        subscribe(
            .eventStream(writer), request: request, lastEventID: lastEventID, prelude: prelude, audience: audience,
            events: events)
    }

    /// Subscribes a WebSocket: every event retained so far, one message each (the V1
    /// socket has no resume: a reconnect gets the whole history again), then live ones;
    /// when the stream finishes, the closing handshake with 1000.
    func attach(webSocket writer: WebSocketWriter, request: HTTPRequest, events: AdminEventFeed? = nil) {
        subscribe(.webSocket(writer), request: request, lastEventID: nil, prelude: [], audience: nil, events: events)
    }

    private func subscribe(
        _ channel: SubscriberChannel, request: HTTPRequest, lastEventID: String?, prelude: [UInt8],
        audience: String?, events: AdminEventFeed?
    ) {
        let record = journal.open(
            stream: name, request: request, lastEventID: lastEventID, protocol: channel.protocolName)
        let feed = events.flatMap { $0.stream === self ? nil : $0 }
        let connection = channel.connectionID
        let now = clock.now
        let replaying = state.withLock { state -> Bool in
            var prelude = prelude
            if let retry = state.retry { prelude += SSEEncoder.retry(milliseconds: retry) }
            if !prelude.isEmpty { channel.writeStreamBytes(prelude) }
            if let audience, let end = state.audiences[audience]?.end {
                // The audience ended between the request's check and now: its last event,
                // then the end, as its other connections got them.
                channel.write([end.event])
                record.noteDelivered(count: 1, ids: CollectionOfOne(end.event.wireID))
                record.noteEnding(end.cause)
                channel.finish()
                return false
            }
            let start = replayStart(for: lastEventID, audience: audience, channel: channel, in: state)
            state.subscribers[connection] = Subscriber(
                channel: channel, record: record, audience: audience, activeSince: now, replayFrom: start)
            return writeReplayBatch(of: connection, in: &state)
        }
        feed?.publishConnected(record.snapshot)
        // After the subscriber is in: a connection that has closed already runs this at once.
        // The end is recorded even when the stream has gone (a reset forgets it first).
        channel.onClose { [weak self] reason, unasked in
            let retry = self?.state.withLock { state -> Int? in
                if let subscriber = state.subscribers[connection], subscriber.channel.isSame(as: channel) {
                    Self.unsubscribe(subscriber, from: &state)
                }
                return state.retry
            }
            record.end(reason: reason, advertisedRetry: retry, unasked: unasked)
            feed?.publishDisconnected(record.snapshot)
        }
        if replaying { continueReplay(of: connection, channel: channel) }
    }

    /// The sequence a new connection's replay starts from (past the log's end: none),
    /// writing the `reset` event or comment its Last-Event-ID calls for.
    private func replayStart(for lastEventID: String?, audience: String?, channel: SubscriberChannel, in state: State)
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
            channel.writeStreamBytes(Self.resetEvent(lastEventID: lastEventID, oldest: log))
            return log.oldestSequence
        case (.deltas, .expired):
            // Issued but past retention: the reset, then what is retained of the audience's own.
            guard let number = Int(lastEventID ?? ""), number > audienceStart else { return nothing }
            channel.writeStreamBytes(Self.resetEvent(lastEventID: lastEventID, oldest: log))
            return max(log.oldestSequence, audienceStart + 1)
        case (.history, .unknown):
            channel.writeStreamBytes(
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
            subscriber.channel.writeStreamBytes(Self.resetEvent(lastEventID: nil, oldest: state.log))
            start = state.log.oldestSequence
        }
        let (batch, next) = state.log.events(
            from: start, visibleTo: subscriber.audience, byteLimit: Self.replayBatchBytes)
        if !batch.isEmpty {
            subscriber.channel.write(batch)
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
            subscriber.channel.finish()
        } else if state.finished {
            state.subscribers[connection] = nil
            subscriber.record.noteEnding(.finished)
            subscriber.channel.finish()
        } else {
            state.subscribers[connection] = subscriber
            switch subscriber.channel {
            case .eventStream(let writer): state.broadcast.insert(writer)
            case .webSocket(let writer): state.webSocketBroadcast.insert(writer)
            }
            state.ledger.open(connection, record: subscriber.record, at: state.log.lastSequence)
            let channel = subscriber.channel
            subscriber.record.settlingLiveDeliveries { [weak self] in
                self?.settleDeliveries(of: connection, channel: channel)
            }
        }
        return false
    }

    /// Writes the rest of a replay batch by batch, each once the connection has taken the
    /// one before down to `replayLowWater`.
    private func continueReplay(of connection: UInt64, channel: SubscriberChannel) {
        channel.whenDrained(toAtMost: Self.replayLowWater) { [weak self] in
            guard let self else { return }
            let more = state.withLock { state -> Bool in
                guard state.subscribers[connection]?.channel.isSame(as: channel) == true else { return false }
                return writeReplayBatch(of: connection, in: &state)
            }
            if more { continueReplay(of: connection, channel: channel) }
        }
    }

    /// Takes a subscriber out of the stream's state; it gets nothing more from it.
    static func unsubscribe(_ subscriber: Subscriber, from state: inout State) {
        let connection = subscriber.channel.connectionID
        state.subscribers[connection] = nil
        state.subscribers.shrinkIfSparse()
        if subscriber.replayFrom == nil {
            switch subscriber.channel {
            case .eventStream(let writer): state.broadcast.remove(writer)
            case .webSocket(let writer): state.webSocketBroadcast.remove(writer)
            }
            state.ledger.close(connection, at: state.log.lastSequence)
        }
    }

    /// Counts what the live subscriber on `connection` got up to now into its record.
    private func settleDeliveries(of connection: UInt64, channel: SubscriberChannel) {
        state.withLock { state in
            guard let subscriber = state.subscribers[connection], subscriber.channel.isSame(as: channel),
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
                "protocol": .string(record.protocol),
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
