import MockBackendHTTP
import ServerSentEvents

/// One event as a stream logged it: encoded and framed once for every subscriber.
public struct LoggedEvent: Sendable {
    /// Position in the stream, from 1, increasing by one per logged event.
    public let sequence: Int
    /// The `id:` on the wire: the sequence, unless the event was pushed with its own id.
    public let wireID: String
    public let event: ServerSentEvent
    let prepared: PreparedBodyPart
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
/// Invariant: `entries` holds the last `retention` logged events in sequence order;
/// sequences before `entries.first` were issued and dropped.
struct EventLog {
    let retention: Int
    private(set) var entries: [LoggedEvent] = []
    private(set) var lastSequence = 0

    init(retention: Int) {
        self.retention = max(1, retention)
    }

    /// Logs `event`, giving it the next sequence and, unless it has one, that as its id.
    mutating func append(_ event: ServerSentEvent, retry: Int? = nil) -> LoggedEvent {
        lastSequence += 1
        var event = event
        if event.id == nil { event.id = String(lastSequence) }
        let logged = LoggedEvent(
            sequence: lastSequence, wireID: event.id ?? "", event: event,
            prepared: PreparedBodyPart(SSEEncoder.encode(event, retry: retry)))
        entries.append(logged)
        // Trimmed in batches so an append costs amortised O(1), not a shift every time.
        if entries.count >= retention + max(1, retention / 4) {
            entries.removeFirst(entries.count - retention)
        }
        return logged
    }

    /// The retained events, oldest first, at most `retention` of them.
    var retained: ArraySlice<LoggedEvent> { entries.suffix(retention) }

    func replay(after lastEventID: String?) -> Replay {
        let retained = Array(self.retained)
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
