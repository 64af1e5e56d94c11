import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request as the journal keeps it: `GET /__admin/requests`.
public struct JournaledRequest: Codable, Sendable, Equatable {
    public var id: Int
    public var receivedAt: String
    public var method: String
    public var target: String
    public var path: String
    public var headers: [String: String]
    /// The first KiB of the body, as UTF-8 (invalid bytes replaced).
    public var bodyExcerpt: String
    public var bodySize: Int
    public var status: Int
    /// Time to build the response (for a stream: until its head).
    public var durationMs: Double
    public var connection: UInt64
    /// The fault that acted on this request, if one did.
    public var fault: String?
}

/// The last requests the mock answered, for verification: how many logins did my client
/// make, did it send the session header. Admin requests are not journaled.
public final class RequestJournal: Sendable {
    private struct State {
        var entries: [JournaledRequest] = []
        var nextID = 1
        /// Wall-clock times of entries, to filter by `since`.
        var times: [Date] = []
    }

    /// Entries kept; older ones go first. Default 5,000.
    public let capacity: Int
    /// Where each recorded request is also published as a `request` event.
    private let events: AdminEventFeed?
    private let state = LockedValue(State())
    static let excerptLength = 1024

    public init(capacity: Int = 5000, events: AdminEventFeed? = nil) {
        self.capacity = capacity
        self.events = events
    }

    func record(_ request: HTTPRequest, status: Int, duration: Duration, fault: String? = nil) {
        var headers: [String: String] = [:]
        for field in request.headers {
            headers[field.name] = headers[field.name].map { $0 + ", " + field.value } ?? field.value
        }
        let now = Date()
        let excerpt = String(decoding: request.body.prefix(Self.excerptLength), as: UTF8.self)
        let milliseconds = duration.milliseconds
        let entry = state.withLock { state in
            let entry = JournaledRequest(
                id: state.nextID, receivedAt: Timestamp.iso8601(now), method: request.method,
                target: request.target,
                path: request.path, headers: headers, bodyExcerpt: excerpt, bodySize: request.body.count,
                status: status, durationMs: milliseconds.rounded(toPlaces: 3), connection: request.connectionID,
                fault: fault)
            state.entries.append(entry)
            state.times.append(now)
            state.nextID += 1
            if state.entries.count > capacity + capacity / 4 {
                let excess = state.entries.count - capacity
                state.entries.removeFirst(excess)
                state.times.removeFirst(excess)
            }
            return entry
        }
        var fields: [String: JSONValue] = [
            "id": .integer(entry.id), "method": .string(entry.method), "target": .string(entry.target),
            "status": .integer(entry.status), "durationMs": .number(entry.durationMs),
            "connection": .integer(Int(clamping: entry.connection)),
        ]
        if let fault = entry.fault { fields["fault"] = .string(fault) }
        events?.publish(.request, fields)
    }

    /// Entries, newest first, that `matcher` accepts and that arrived at or after `since`.
    public func entries(matching matcher: RequestMatcher = RequestMatcher(), since: Date? = nil, limit: Int = .max)
        -> [JournaledRequest]
    {
        let (entries, times) = state.withLock { ($0.entries, $0.times) }
        var result: [JournaledRequest] = []
        for index in entries.indices.reversed() where result.count < limit {
            if let since, times[index] < since { break }
            if matcher.matches(entries[index]) { result.append(entries[index]) }
        }
        return result
    }

    /// How many entries `matcher` accepts.
    public func count(matching matcher: RequestMatcher) -> Int {
        state.withLock { $0.entries }.filter(matcher.matches).count
    }

    /// Forgets every entry; returns how many there were.
    @discardableResult
    public func clear() -> Int {
        state.withLock { state in
            defer {
                state.entries = []
                state.times = []
            }
            return state.entries.count
        }
    }
}
