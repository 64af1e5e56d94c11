import MockBackendAPI
import MockBackendHTTP

extension StreamSink {
    /// Bytes an event stream sends as they are (a comment, a `retry:`, a `reset` notice,
    /// which is one event); a WebSocket has nothing to say of them.
    func writeNotice(_ bytes: [UInt8], events: Int = 0) {
        guard framing == .eventStream else { return }
        write(StreamPayload(body: PreparedBodyPart(unframed: bytes), events: events))
    }

    /// Logged events in one write: their frames joined on an event stream, a message each
    /// on a WebSocket. With `retry`, an event stream gets a `retry:` line at the head of the
    /// first event's block, unless that event carries one of its own (WHATWG HTML §9.2.6:
    /// the field is read wherever it is in a block).
    func write(_ events: [LoggedEvent], retry: Int? = nil) {
        guard !events.isEmpty else { return }
        switch framing {
        case .eventStream:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(events.reduce(16) { $0 + $1.bytes.count })
            if let retry, !events[0].bytes.starts(with: Self.retryField) {
                bytes += Array("retry: \(max(0, retry))\n".utf8)
            }
            for event in events { bytes += event.bytes }
            write(StreamPayload(body: PreparedBodyPart(unframed: bytes), events: events.count))
        case .webSocket:
            write(StreamPayload(messages: EventStream.messages(of: events), events: events.count))
        }
    }

    private static var retryField: [UInt8] { Array("retry:".utf8) }

    /// An admin disconnect: a broken connection (FIN, or RST), or a graceful end — the end
    /// of the body, or the closing handshake with 1001 (going away).
    func disconnect(_ mode: DisconnectMode) {
        switch mode {
        case .graceful: finish(.goingAway)
        case .broken: abort(reset: false)
        case .reset: abort(reset: true)
        }
    }
}

extension EventStream.Subscriber {
    /// Notes why the stream ends this subscriber, in its journal record and on its sink,
    /// so that the request log's line of its request says the same (`StreamSink.nameEnd`).
    func noteEnding(_ cause: StreamEndCause, overriding: Bool = false) {
        sink.nameEnd(record.noteEnding(cause, overriding: overriding).rawValue)
    }
}
