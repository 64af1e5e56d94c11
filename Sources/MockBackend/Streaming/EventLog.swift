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
    var events: [LoggedEvent] { events(from: 0) }

    /// The retained events from the `start`-th on (0 is the oldest), decoded.
    private func events(from start: Int) -> [LoggedEvent] {
        let oldestSequence = lastSequence - retained.count + 1
        var index = 0
        var events: [LoggedEvent] = []
        events.reserveCapacity(max(0, retained.count - start))
        retained.forEachRecord { record in
            defer { index += 1 }
            guard index >= start else { return }
            events.append(
                LoggedEvent(sequence: oldestSequence + index, wireID: record.readString(), bytes: record.readBytes()))
        }
        return events
    }

    /// Where `lastEventID` is among the retained events: every reconnect asks, so only the
    /// ids are read (short ids are small strings: nothing is copied to the heap).
    private func position(of lastEventID: String?) -> Position {
        guard let lastEventID, !lastEventID.isEmpty else { return .none }
        var index = 0
        var found: Int?
        retained.forEachRecord { record in
            if record.readString() == lastEventID { found = index }
            index += 1
        }
        if let found { return .retained(found) }
        if let sequence = Int(lastEventID), sequence >= 1, sequence <= lastSequence { return .expired }
        return .unknown
    }

    private enum Position {
        case none
        case retained(Int)
        case expired, unknown
    }

    func replay(after lastEventID: String?) -> Replay {
        switch position(of: lastEventID) {
        case .none: .everything(events)
        case .retained(let index): .after(events(from: index + 1))
        case .expired: .expired(events)
        case .unknown: .unknown(events)
        }
    }

    /// Whether a client that sent `lastEventID` would be replayed anything.
    func hasEvents(after lastEventID: String?) -> Bool {
        switch position(of: lastEventID) {
        case .retained(let index): index + 1 < retained.count
        case .none, .expired, .unknown: retained.count > 0
        }
    }
}
