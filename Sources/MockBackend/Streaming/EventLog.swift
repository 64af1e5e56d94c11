import ServerSentEvents

/// One event as a stream logged it: encoded once for every subscriber.
public struct LoggedEvent: Sendable {
    /// Position in the stream, from 1, increasing by one per logged event.
    public let sequence: Int
    /// The `id:` on the wire: the sequence, unless the event was pushed with its own id.
    public let wireID: String
    /// The event as it goes on the wire (`SSEEncoder`), before any transfer coding.
    let bytes: [UInt8]
}

/// Where a reconnecting client resumes, decided from the Last-Event-ID it sent.
enum Replay {
    /// No Last-Event-ID: everything retained.
    case everything([LoggedEvent])
    /// The id is known: what came after it.
    case after([LoggedEvent])
    /// The id was issued but has left retention: a `reset` event, then everything retained.
    case expired([LoggedEvent])
    /// The stream never issued the id: a comment saying so, then everything retained.
    case unknown([LoggedEvent])

    var events: [LoggedEvent] {
        switch self {
        case .everything(let events), .after(let events), .expired(let events), .unknown(let events): events
        }
    }
}

/// The events of one stream with increasing ids and bounded retention.
///
/// Invariant: `retained` holds the last `retention` logged events in sequence order, the
/// newest with `lastSequence`; sequences before the oldest retained were issued and
/// dropped. The retained events are kept as bytes in chunks (`ChunkedRecordLog`), not as an
/// object each: a stream such as the admin feed logs an event for every request, and those
/// must not pin memory once a burst of connections has gone.
struct EventLog {
    let retention: Int
    private var retained: ChunkedRecordLog
    private(set) var lastSequence = 0
    /// The wire id of the last logged event.
    private(set) var lastWireID: String?

    init(retention: Int) {
        self.retention = max(1, retention)
        retained = ChunkedRecordLog(retention: self.retention)
    }

    /// How many events are retained for replay.
    var retainedCount: Int { retained.count }

    /// Logs `event`, giving it the next sequence and, unless it has one, that as its id.
    mutating func append(_ event: ServerSentEvent, retry: Int? = nil) -> LoggedEvent {
        lastSequence += 1
        var event = event
        if event.id == nil { event.id = String(lastSequence) }
        let logged = LoggedEvent(
            sequence: lastSequence, wireID: event.id ?? "", bytes: SSEEncoder.encode(event, retry: retry))
        retained.append { record in
            record.write(logged.wireID)
            record.write(logged.bytes)
        }
        lastWireID = logged.wireID
        return logged
    }

    /// The retained events, oldest first.
    var events: [LoggedEvent] {
        var sequence = lastSequence - retained.count
        return retained.map { record in
            sequence += 1
            return LoggedEvent(sequence: sequence, wireID: record.readString(), bytes: record.readBytes())
        }
    }

    func replay(after lastEventID: String?) -> Replay {
        let retained = events
        guard let lastEventID, !lastEventID.isEmpty else { return .everything(retained) }
        if let index = retained.lastIndex(where: { $0.wireID == lastEventID }) {
            return .after(Array(retained[(index + 1)...]))
        }
        if let sequence = Int(lastEventID), sequence >= 1, sequence <= lastSequence {
            return .expired(retained)
        }
        return .unknown(retained)
    }
}
