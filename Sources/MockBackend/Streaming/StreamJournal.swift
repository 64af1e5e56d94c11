import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the journal knows of one stream connection; `GET /__admin/streams/connections`.
public struct StreamConnectionSnapshot: Codable, Sendable, Equatable {
    /// The gap between a client's previous connection ending and this one starting.
    public struct Reconnect: Codable, Sendable, Equatable {
        public var gapMs: Double
        public var previousEndedAt: String
        /// The `retry:` the server had advertised when the previous connection ended.
        public var advertisedRetryMs: Int?
    }

    public var id: Int
    public var stream: String
    public var connection: UInt64
    public var client: String
    public var connectedAt: String
    public var endedAt: String?
    public var endReason: String?
    public var lastEventId: String?
    public var requestHeaders: [String: String]
    public var deliveredIds: [String]
    public var deliveredCount: Int
    public var reconnect: Reconnect?
}

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

    /// Records the end once; `advertisedRetry` is remembered for the client's next connection.
    func end(reason: String, advertisedRetry: Int?) {
        let ended = state.withLock { state -> Bool in
            state.settleLive = nil
            guard state.snapshot.endedAt == nil else { return false }
            state.snapshot.endedAt = Timestamp.iso8601(Date())
            state.snapshot.endReason = reason
            return true
        }
        if ended { journal.noteEnd(clientKey: clientKey, advertisedRetry: advertisedRetry) }
    }
}

/// Every stream connection: request headers, the Last-Event-ID it sent, ids delivered, how
/// it ended and why, and for a reconnect the gap since the same client's previous
/// connection ended. A client is told apart by `X-Client-Id`, else by `User-Agent`, per stream.
public final class StreamJournal: Sendable {
    private struct PreviousEnd {
        var at: ContinuousClock.Instant
        var wallTime: Date
        var advertisedRetry: Int?
    }

    private struct State {
        var records: [StreamConnectionRecord] = []
        var nextID = 1
        var previousEnds: [String: PreviousEnd] = [:]
    }

    /// Records kept; older ones are dropped first.
    let capacity: Int
    private let state = LockedValue(State())

    public init(capacity: Int = 1000) {
        self.capacity = capacity
    }

    func open(stream: String, request: HTTPRequest, lastEventID: String?) -> StreamConnectionRecord {
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
                id: state.nextID, stream: stream, connection: request.connectionID, client: client,
                connectedAt: Timestamp.iso8601(Date()), endedAt: nil, endReason: nil, lastEventId: lastEventID,
                requestHeaders: headers, deliveredIds: [], deliveredCount: 0, reconnect: reconnect)
            state.nextID += 1
            let record = StreamConnectionRecord(snapshot: snapshot, clientKey: clientKey, journal: self)
            state.records.append(record)
            if state.records.count > capacity { state.records.removeFirst(state.records.count - capacity) }
            return record
        }
    }

    fileprivate func noteEnd(clientKey: String, advertisedRetry: Int?) {
        state.withLock { state in
            state.previousEnds[clientKey] = PreviousEnd(at: .now, wallTime: Date(), advertisedRetry: advertisedRetry)
        }
    }

    /// Records oldest first, of one stream or all.
    public func snapshots(stream: String? = nil) -> [StreamConnectionSnapshot] {
        let records = state.withLock { $0.records }
        return records.map(\.snapshot).filter { stream == nil || $0.stream == stream }
    }

    public func clear() {
        state.withLock { $0 = State(nextID: $0.nextID) }
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        var factor = 1.0
        for _ in 0..<places { factor *= 10 }
        return (self * factor).rounded() / factor
    }
}
