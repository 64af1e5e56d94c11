import MockBackendHTTP
import MockBackendSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One stream connection as it happens. Its fields change under its own lock: the events
/// written to the connection are noted in bulk by the stream's `DeliveryLedger`, the end
/// when the connection ends. What was delivered — the events whose last byte left for the
/// client — is the sink's to count (`DeliveryTally`); the record reads it there, so a
/// stalled, muted or blackholed event is never reported delivered.
final class StreamConnectionRecord: Sendable {
    /// Events whose ids are kept per connection (the first ones); the counts go on past it.
    /// Small, so that thousands of long-lived streams do not each hold a long list.
    static let deliveredIDLimit = 200
    private struct State {
        var snapshot: StreamConnectionSnapshot
        /// The first events written, in order: each one's id, nil for one without (a
        /// `reset` notice, an event sent to the connection alone without an id).
        var written: [String?] = []
        /// While the connection is subscribed: brings the written events up to date (the
        /// stream notes live events lazily). Called without this lock held.
        var settleLive: (@Sendable () -> Void)?
        /// Why the stream is ending the connection, noted before it asks the connection to
        /// finish or drop: the connection itself only knows that it was asked.
        var intendedEnd: StreamEndCause?
        /// Whether `intendedEnd` stands against a later cause (`noteEnding(_:overriding:)`).
        var endIsFinal = false
    }

    private let state: LockedValue<State>
    private let journal: StreamJournal
    /// The sink's count of what left for the client.
    private let deliveries: DeliveryTally
    let clientKey: String

    init(snapshot: StreamConnectionSnapshot, clientKey: String, deliveries: DeliveryTally, journal: StreamJournal) {
        state = LockedValue(State(snapshot: snapshot))
        self.clientKey = clientKey
        self.deliveries = deliveries
        self.journal = journal
    }

    /// The record, with live events noted up to now.
    var snapshot: StreamConnectionSnapshot {
        state.withLock(\.settleLive)?()
        return notedSnapshot
    }

    /// The record as noted so far, without noting live events first: for a caller that
    /// holds the stream's lock (and has noted them itself).
    var notedSnapshot: StreamConnectionSnapshot {
        state.withLock { state in Self.delivering(state, deliveries.snapshot) }
    }

    /// `state`'s snapshot with what has been delivered of what was written.
    private static func delivering(_ state: State, _ tally: DeliveryTally.Snapshot) -> StreamConnectionSnapshot {
        var snapshot = state.snapshot
        snapshot.deliveredCount = tally.delivered
        snapshot.deliveredIds = tally.delivered(of: state.written).compactMap { $0 }
        return snapshot
    }

    /// Whether the record keeps the ids of more events.
    var takesMoreIDs: Bool { state.withLock { $0.written.count < Self.deliveredIDLimit } }

    /// Notes `count` more events written to the connection, keeping the ids from `ids`
    /// while there is room.
    func noteWritten(count: Int, ids: some Collection<String>) {
        state.withLock { state in
            let room = Self.deliveredIDLimit - state.written.count
            if room > 0, !ids.isEmpty { state.written.append(contentsOf: ids.prefix(room).map { Optional($0) }) }
        }
    }

    /// Notes one more event written to the connection, with its id if it has one.
    func noteWritten(id: String?) {
        state.withLock { state in
            if state.written.count < Self.deliveredIDLimit { state.written.append(id) }
        }
    }

    /// Notes an event received from a proxied stream's upstream, with its id if it has one.
    func noteUpstream(id: String?) {
        guard let id else { return }
        state.withLock { state in
            if let count = state.snapshot.upstreamIds?.count, count < Self.deliveredIDLimit {
                state.snapshot.upstreamIds?.append(id)
            }
        }
    }

    /// Sets (or, with nil, clears) what brings the live events up to date.
    func settlingLiveDeliveries(with settle: (@Sendable () -> Void)?) {
        state.withLock { $0.settleLive = settle }
    }

    /// Notes why the stream is about to end the connection. The first cause noted wins,
    /// unless a later one is `overriding` (an admin's disconnect, which is what ends a
    /// connection that never took its clean end, a blackholed one).
    /// Returns the cause that stands.
    @discardableResult
    func noteEnding(_ cause: StreamEndCause, overriding: Bool = false) -> StreamEndCause {
        state.withLock { state in
            if state.intendedEnd == nil || (overriding && !state.endIsFinal) {
                state.intendedEnd = cause
                state.endIsFinal = overriding
            }
            return state.intendedEnd ?? cause
        }
    }

    /// Records the end once: the cause the stream noted when it asked for the end (however
    /// the connection then ended: a WebSocket's closing handshake may time out); else the
    /// connection's own reason. `advertisedRetry` is remembered for the client's next
    /// connection.
    func end(reason: StreamEndReason, advertisedRetry: Int?) {
        let tally = deliveries.snapshot
        let ended = state.withLock { state -> StreamConnectionSnapshot? in
            state.settleLive = nil
            guard state.snapshot.endedAt == nil else { return nil }
            let cause = state.intendedEnd ?? StreamEndCause(reason)
            state.snapshot.endedAt = Timestamp.iso8601(Date())
            state.snapshot.endReason = cause.rawValue
            return Self.delivering(state, tally)
        }
        if let ended { journal.noteEnd(ended, clientKey: clientKey, advertisedRetry: advertisedRetry) }
    }
}

/// Every stream connection: request headers, the Last-Event-ID it sent, ids delivered, how
/// it ended and why, and for a reconnect the gap since the same client's previous
/// connection ended. A client is told apart by `X-Client-Id`, else by `User-Agent`, per stream.
///
/// Kept: the record of every connection still open, and the last `capacity` ended ones.
/// Open records are objects that change as events go out; an ended record is final and is
/// kept as bytes (`ChunkedRecordLog`), so thousands of ended streams leave a few buffers
/// behind, not thousands of small objects.
package final class StreamJournal: Sendable {
    private struct PreviousEnd {
        var at: ContinuousClock.Instant
        var wallTime: Date
        var advertisedRetry: Int?
    }

    private struct State {
        /// Records of the connections still open, by record id.
        var open: [Int: StreamConnectionRecord] = [:]
        /// Ended records, in the order they ended.
        var ended: ChunkedRecordLog
        var nextID = 1
        /// When each client's last connection to a stream ended, by `clientKey`.
        var previousEnds: [String: PreviousEnd] = [:]
    }

    /// Ended records kept; older ones are dropped first. The clients remembered for
    /// reconnect gaps are bounded by the same number (the most recent ends win).
    let capacity: Int
    private let state: LockedValue<State>

    package init(capacity: Int = 1000) {
        self.capacity = capacity
        state = LockedValue(State(ended: ChunkedRecordLog(retention: capacity)))
    }

    func open(
        stream: String, request: HTTPRequest, lastEventID: String?, protocol: String = "sse",
        deliveries: DeliveryTally = DeliveryTally(), proxied: Bool = false
    ) -> StreamConnectionRecord {
        let client = request.headers["X-Client-Id"] ?? request.headers["User-Agent"] ?? "anonymous"
        let clientKey = stream + "|" + client
        var headers: [String: String] = [:]
        for field in request.headers {
            headers[field.name] = headers[field.name].map { $0 + ", " + field.value } ?? field.value
        }
        let now = ContinuousClock.now
        return state.withLock { state in
            var reconnect: StreamConnectionSnapshot.Reconnect?
            if let previous = state.previousEnds[clientKey] {
                let gap = now - previous.at
                reconnect = .init(
                    gapMs: gap.milliseconds.rounded(toPlaces: 1),
                    previousEndedAt: Timestamp.iso8601(previous.wallTime),
                    advertisedRetryMs: previous.advertisedRetry)
            }
            var snapshot = StreamConnectionSnapshot(
                id: state.nextID, stream: stream, protocol: `protocol`, connection: request.connectionID,
                client: client,
                connectedAt: Timestamp.iso8601(Date()), endedAt: nil, endReason: nil, lastEventId: lastEventID,
                requestHeaders: headers, deliveredIds: [], deliveredCount: 0, reconnect: reconnect)
            if proxied {
                snapshot.proxied = true
                snapshot.upstreamIds = []
            }
            state.nextID += 1
            let record = StreamConnectionRecord(
                snapshot: snapshot, clientKey: clientKey, deliveries: deliveries, journal: self)
            state.open[snapshot.id] = record
            return record
        }
    }

    /// Moves an ended record from the open ones to the ended ones, unless the journal was
    /// cleared since it opened.
    fileprivate func noteEnd(_ snapshot: StreamConnectionSnapshot, clientKey: String, advertisedRetry: Int?) {
        let end = PreviousEnd(at: .now, wallTime: Date(), advertisedRetry: advertisedRetry)
        state.withLock { state in
            guard state.open.removeValue(forKey: snapshot.id) != nil else { return }
            state.open.shrinkIfSparse()
            state.ended.append(snapshot.write(to:))
            state.previousEnds[clientKey] = end
            if state.previousEnds.count > 2 * max(1, capacity) {
                let kept = state.previousEnds.sorted { $0.value.at > $1.value.at }.prefix(max(1, capacity))
                state.previousEnds = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
            }
        }
    }

    /// Records in the order their connections opened, of one stream or all.
    package func snapshots(stream: String? = nil) -> [StreamConnectionSnapshot] {
        let (open, ended) = state.withLock { state in (Array(state.open.values), state.ended) }
        // Read outside the lock: settling an open record takes its stream's lock.
        return (ended.map(StreamConnectionSnapshot.init(reading:)) + open.map(\.snapshot))
            .filter { stream == nil || $0.stream == stream }
            .sorted { $0.id < $1.id }
    }

    /// Forgets every record; connections open now are not recorded when they end.
    package func clear() {
        state.withLock { state in
            state.open = [:]
            state.ended.removeAll()
            state.previousEnds = [:]
        }
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        var factor = 1.0
        for _ in 0..<places { factor *= 10 }
        return (self * factor).rounded() / factor
    }
}
