import ServerSentEvents

/// One event as a stream logged it: encoded once for every subscriber.
package struct LoggedEvent: Sendable {
    /// Position in the stream, from 1, increasing by one per logged event.
    package let sequence: Int
    /// The `id:` on the wire: the sequence, unless the event was pushed with its own id.
    package let wireID: String
    /// The subscribers it is for: nil for all of them, else one audience (the connections
    /// of one player session) — a session's last frame goes to that session only.
    let audience: String?
    /// The event as it goes on the wire (`SSEEncoder`), before any transfer coding.
    let bytes: [UInt8]
    /// The event as a WebSocket text message (`StreamEvent`), on a stream that logs them
    /// (`EventStreamSettings.messages`).
    let message: [UInt8]?

    /// Whether a subscriber of `audience` (nil: none in particular) gets this event.
    func isVisible(to audience: String?) -> Bool {
        self.audience == nil || self.audience == audience
    }
}

/// Where a Last-Event-ID points in a stream's log.
enum LogPosition: Equatable {
    /// No Last-Event-ID was sent.
    case none
    /// The id is retained: the event has this sequence.
    case retained(Int)
    /// The id was issued but has left retention.
    case expired
    /// The stream never issued the id.
    case unknown
}

/// The events of one stream with increasing ids and bounded retention.
///
/// Invariant: `retained` holds the last `retention` logged events in sequence order, the
/// newest with `lastSequence`; sequences before `oldestSequence` were issued and dropped.
/// The retained events are kept as bytes in chunks (`ChunkedRecordLog`), not as an object
/// each: a stream such as the admin feed logs an event for every request, and those must
/// not pin memory once a burst of connections has gone.
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

    /// The sequence of the oldest retained event (`lastSequence + 1` when none is).
    var oldestSequence: Int { lastSequence - retained.count + 1 }

    /// Logs `event`, giving it the next sequence and, unless it has one, that as its id;
    /// with `messages`, its WebSocket message beside its frame: `message` when given (a
    /// flood's copies share one), else encoded now.
    mutating func append(
        _ event: StreamEvent, retry: Int? = nil, audience: String? = nil, messages: Bool = false,
        message: [UInt8]? = nil
    ) -> LoggedEvent {
        lastSequence += 1
        var frame = event.frame
        if frame.id == nil { frame.id = String(lastSequence) }
        let logged = LoggedEvent(
            sequence: lastSequence, wireID: frame.id ?? "", audience: audience,
            bytes: SSEEncoder.encode(frame, retry: retry), message: messages ? (message ?? event.message()) : nil)
        retained.append { record in
            record.write(logged.wireID)
            record.write(audience)
            record.write(logged.bytes)
            record.write(logged.message)
        }
        lastWireID = logged.wireID
        return logged
    }

    /// Logs a bare frame (`StreamEvent.init(_:)`).
    mutating func append(_ frame: ServerSentEvent, retry: Int? = nil, audience: String? = nil) -> LoggedEvent {
        append(StreamEvent(frame), retry: retry, audience: audience)
    }

    /// Issues `count` sequences without retaining their events: events logged and already
    /// pushed out of retention by newer ones. Everything retained before goes with them.
    mutating func skip(_ count: Int) {
        guard count > 0 else { return }
        retained.removeAll()
        lastSequence += count
        lastWireID = String(lastSequence)
    }

    /// Where `lastEventID` is among the retained events. Every reconnect asks, so only the
    /// ids are read (short ids are small strings: nothing is copied to the heap). An id
    /// logged more than once points at its last use.
    func position(of lastEventID: String?) -> LogPosition {
        guard let lastEventID, !lastEventID.isEmpty else { return .none }
        var index = 0
        var found: Int?
        retained.forEachRecord { record in
            if record.readString() == lastEventID { found = index }
            index += 1
            return true
        }
        if let found { return .retained(oldestSequence + found) }
        if let sequence = Int(lastEventID), sequence >= 1, sequence <= lastSequence { return .expired }
        return .unknown
    }

    /// The events from sequence `start` on that `audience` sees, oldest first: at least
    /// one when there is one, and no more once their bytes reach `byteLimit`. `next` is the
    /// sequence to read from after them. `start` must not be before `oldestSequence`.
    func events(from start: Int, visibleTo audience: String?, byteLimit: Int = .max)
        -> (events: [LoggedEvent], next: Int)
    {
        var events: [LoggedEvent] = []
        var bytes = 0
        var sequence = max(start, oldestSequence)
        retained.forEachRecord(from: sequence - oldestSequence) { record in
            let wireID = record.readString()
            let eventAudience = record.readOptionalString()
            defer { sequence += 1 }
            guard eventAudience == nil || eventAudience == audience else { return true }
            let event = LoggedEvent(
                sequence: sequence, wireID: wireID, audience: eventAudience, bytes: record.readBytes(),
                message: record.readOptionalBytes())
            events.append(event)
            bytes += event.bytes.count
            return bytes < byteLimit
        }
        return (events, sequence)
    }

    /// The wire id of the oldest retained event.
    var oldestWireID: String? {
        var id: String?
        retained.forEachRecord { record in
            id = record.readString()
            return false
        }
        return id
    }

    /// The retained events, oldest first.
    var events: [LoggedEvent] { events(from: oldestSequence, visibleTo: nil).events }

    /// Whether anything retained follows `position` (for a client that sent that id).
    func hasEvents(after position: LogPosition) -> Bool {
        switch position {
        case .retained(let sequence): sequence < lastSequence
        case .none, .expired, .unknown: retained.count > 0
        }
    }
}
