import MockBackendHTTP
import MockBackendSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One stream connection as it happens. Its fields change under its own lock: deliveries
/// are noted in bulk by the stream's `DeliveryLedger`, the end when the connection closes.
final class StreamConnectionRecord: Sendable {
    /// Ids kept per connection (the first ones); the count goes on past it. Small, so that
    /// thousands of long-lived streams do not each hold a long list.
    static let deliveredIDLimit = 200
    private struct State {
        var snapshot: StreamConnectionSnapshot
        /// While the connection is subscribed: brings the delivery count and ids up to date
        /// (the stream counts live deliveries lazily). Called without this lock held.
        var settleLive: (@Sendable () -> Void)?
        /// Why the stream is ending the connection, noted before it asks the connection to
        /// finish or drop: the connection itself only knows that it was asked.
        var intendedEnd: StreamEndCause?
    }

    private let state: LockedValue<State>
    private let journal: StreamJournal
    let clientKey: String

    init(snapshot: StreamConnectionSnapshot, clientKey: String, journal: StreamJournal) {
        state = LockedValue(State(snapshot: snapshot))
        self.clientKey = clientKey
        self.journal = journal
    }

    /// The record, with live deliveries counted up to now.
    var snapshot: StreamConnectionSnapshot {
        state.withLock(\.settleLive)?()
        return notedSnapshot
    }

    /// The record as noted so far, without settling live deliveries: for a caller that
    /// holds the stream's lock (and has settled them itself).
    var notedSnapshot: StreamConnectionSnapshot { state.withLock(\.snapshot) }

    /// Whether the record keeps more ids.
    var takesMoreIDs: Bool { state.withLock { $0.snapshot.deliveredIds.count < Self.deliveredIDLimit } }

    /// Notes `count` more deliveries, keeping ids from `ids` while there is room.
    func noteDelivered(count: Int, ids: some Collection<String>) {
        state.withLock { state in
            state.snapshot.deliveredCount += count
            let room = Self.deliveredIDLimit - state.snapshot.deliveredIds.count
            if room > 0, !ids.isEmpty { state.snapshot.deliveredIds.append(contentsOf: ids.prefix(room)) }
        }
    }

    /// Sets (or, with nil, clears) what brings live deliveries up to date.
    func settlingLiveDeliveries(with settle: (@Sendable () -> Void)?) {
        state.withLock { $0.settleLive = settle }
    }

    /// Notes why the stream is about to end the connection; the first cause noted wins.
    func noteEnding(_ cause: StreamEndCause) {
        state.withLock { state in
            if state.intendedEnd == nil { state.intendedEnd = cause }
        }
    }

    /// Records the end once: the cause the stream noted when it asked for the end (however
    /// the connection then ended: a WebSocket's closing handshake may time out); else, for
    /// a connection that finished or was dropped without the stream asking, `unasked` when
    /// given (a WebSocket closing handshake the client began); else the connection's own
    /// reason. `advertisedRetry` is remembered for the client's next connection.
    func end(reason: StreamEndReason, advertisedRetry: Int?, unasked: StreamEndCause? = nil) {
        let ended = state.withLock { state -> StreamConnectionSnapshot? in
            state.settleLive = nil
            guard state.snapshot.endedAt == nil else { return nil }
            let unaskedCause = reason == .finished || reason == .aborted ? unasked : nil
            let cause = state.intendedEnd ?? unaskedCause ?? StreamEndCause(reason)
            state.snapshot.endedAt = Timestamp.iso8601(Date())
            state.snapshot.endReason = cause.rawValue
            return state.snapshot
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

    func open(stream: String, request: HTTPRequest, lastEventID: String?, protocol: String = "sse")
        -> StreamConnectionRecord
    {
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
            let snapshot = StreamConnectionSnapshot(
                id: state.nextID, stream: stream, protocol: `protocol`, connection: request.connectionID,
                client: client,
                connectedAt: Timestamp.iso8601(Date()), endedAt: nil, endReason: nil, lastEventId: lastEventID,
                requestHeaders: headers, deliveredIds: [], deliveredCount: 0, reconnect: reconnect)
            state.nextID += 1
            let record = StreamConnectionRecord(snapshot: snapshot, clientKey: clientKey, journal: self)
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
