import MockBackendHTTP
import ServerSentEvents

extension EventStream {
    /// Subscribes a connection whose events come from an upstream of its own (a proxied
    /// stream, `proxy/<path>`): live at once, with nothing replayed and no prelude (the
    /// upstream resumes from the Last-Event-ID it was sent and writes its own `retry:`).
    /// Its upstream's events come through `relay`, pushes through `inject`; the broadcast
    /// and the log are not used. `afterEnd` runs once the connection has ended.
    @discardableResult
    func attachRelay(
        _ sink: any StreamSink, request: HTTPRequest, lastEventID: String?, events: AdminEventFeed?,
        proxied: Bool = true, afterEnd: (@Sendable () -> Void)? = nil
    ) -> StreamConnectionRecord {
        let record = journal.open(
            stream: name, request: request, lastEventID: lastEventID, protocol: sink.framing.protocolName,
            deliveries: sink.deliveries, proxied: proxied)
        let connection = sink.connectionID
        let now = clock.now
        state.withLock { state in
            state.subscribers[connection] = Subscriber(
                sink: sink, record: record, audience: nil, activeSince: now, phase: .live, retryOwed: nil)
            state.ledger.open(connection, record: record, at: state.log.lastSequence)
        }
        record.settlingLiveDeliveries { [weak self] in self?.settleDeliveries(of: connection, sink: sink) }
        let feed = events.flatMap { $0.stream === self ? nil : $0 }
        feed?.publishConnected(record.snapshot)
        endsWithItsSink(sink, record: record, feed: feed, then: afterEnd)
        return record
    }

    /// Writes one block of the connection's upstream stream (`SSEBlock`), byte for byte, to
    /// that connection only; nothing when no live subscriber is on it.
    func relay(_ block: SSEBlock, toConnection connection: UInt64) {
        relay(block.bytes, completing: [block], toConnection: connection)
    }

    /// Writes `bytes` of the connection's upstream stream as one write, byte for byte, to
    /// that connection only: a recorded write that completes `blocks` (none, when it ends
    /// inside a block). Nothing when no live subscriber is on it.
    func relay(_ bytes: [UInt8], completing blocks: [SSEBlock], toConnection connection: UInt64) {
        state.withLock { state in
            guard let subscriber = state.subscribers[connection], subscriber.phase == .live else { return }
            let events = blocks.filter(\.isEvent)
            subscriber.sink.write(StreamPayload(body: PreparedBodyPart(unframed: bytes), events: events.count))
            for event in events {
                subscriber.record.noteUpstream(id: event.id)
                state.ledger.sentAlone(id: event.id, to: connection, at: state.log.lastSequence)
            }
        }
    }

    /// Writes one message of the connection's upstream WebSocket to that connection only
    /// (an event, for the faults that count them); nothing when no live subscriber is on it.
    func relay(_ message: PreparedWebSocketMessage, toConnection connection: UInt64) {
        state.withLock { state in
            guard let subscriber = state.subscribers[connection], subscriber.phase == .live else { return }
            subscriber.sink.write(StreamPayload(messages: PreparedWebSocketMessages([message]), events: 1))
            state.ledger.sentAlone(id: nil, to: connection, at: state.log.lastSequence)
        }
    }

    /// Whether this is a relayed stream (`proxy/<path>`, or `replay/<path>` for `sse`
    /// stubs), whose events come from an upstream or a recording per connection: pushes
    /// are injected (`inject`), never logged.
    var isRelay: Bool { name.hasPrefix(Self.relayPrefix) || name.hasPrefix(Self.replayPrefix) }

    /// The name prefix of proxied streams.
    static let relayPrefix = "proxy/"
    /// The name prefix of streams played from `sse` stubs.
    static let replayPrefix = "replay/"

    /// An event pushed into a relayed stream: written to every live subscriber (or the one
    /// on `connection`) between two of its upstream's blocks, never logged, with an `id:`
    /// only when the push gives one (a client that resumes must never send its upstream an
    /// id it did not issue). Returns how many subscribers it went to.
    func inject(_ event: StreamEvent, retry: Int?, toConnection only: UInt64? = nil) -> Int {
        // In both forms: a proxied WebSocket gets it as a message of its own.
        let payload = StreamPayload(
            body: PreparedBodyPart(unframed: SSEEncoder.encode(event.frame, retry: retry)),
            messages: PreparedWebSocketMessages([PreparedWebSocketMessage(utf8Text: event.message())]), events: 1)
        return state.withLock { state in
            var count = 0
            for (connection, subscriber) in state.subscribers
            where subscriber.phase == .live && (only == nil || only == connection) {
                subscriber.sink.write(payload)
                state.ledger.sentAlone(id: event.frame.id, to: connection, at: state.log.lastSequence)
                count += 1
            }
            return count
        }
    }

    /// Ends one relayed connection with `event` written last (a session's terminal event),
    /// or without. False when no live subscriber is on it.
    @discardableResult
    func endRelay(of connection: UInt64, with event: [UInt8]?, cause: StreamEndCause) -> Bool {
        state.withLock { state in
            guard let subscriber = state.subscribers[connection], subscriber.phase == .live else { return false }
            if let event {
                subscriber.sink.write(StreamPayload(body: PreparedBodyPart(unframed: event), events: 1))
                state.ledger.sentAlone(id: nil, to: connection, at: state.log.lastSequence)
            }
            Self.stopSending(to: subscriber, in: &state)
            subscriber.sink.nameEnd(subscriber.record.noteEnding(cause, overriding: true).rawValue)
            subscriber.sink.finish(.complete)
            return true
        }
    }
}
