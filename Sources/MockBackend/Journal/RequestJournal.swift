import MockBackendHTTP
import MockBackendSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The last requests the mock answered, for verification: how many logins did my client
/// make, did it send the session header. Admin requests are not journaled.
///
/// Entries are kept as bytes in chunks (`ChunkedRecordLog`) and decoded when read: every
/// request, stream connections included, makes one, and thousands of them must not pin
/// memory between the buffers of connections that have gone.
package final class RequestJournal: Sendable {
    private struct State {
        var entries: ChunkedRecordLog
        var nextID = 1
        /// The answers of the entries kept, by entry id (`ResponseCapture`).
        var captures: [Int: ResponseCapture] = [:]
    }

    /// Entries kept; older ones go first. Default 5,000.
    package let capacity: Int
    /// Where each recorded request is also published as a `request` event.
    private let events: AdminEventFeed?
    /// The RST_STREAM and GOAWAY frames of HTTP/2 exchanges, shown with their entries and
    /// with the stream journal's records; cleared by a reset, not with the entries.
    package let http2Endings = HTTP2EndingLog()
    private let state: LockedValue<State>
    static let excerptLength = 1024
    /// Entries whose answers are kept for the HAR export (`ResponseCapture`), newest
    /// first: at most 16 KiB each, so at most 16 MiB in all.
    static let captureCapacity = 1000

    package init(capacity: Int = 5000, events: AdminEventFeed? = nil) {
        self.capacity = capacity
        self.events = events
        state = LockedValue(State(entries: ChunkedRecordLog(retention: capacity)))
    }

    func record(
        _ request: HTTPRequest, status: Int, duration: Duration, fault: FiredFault? = nil, relay: RelayedAnswer? = nil,
        capture: ResponseCapture? = nil
    ) {
        let now = Date()
        let milliseconds = duration.milliseconds.rounded(toPlaces: 3)
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.captures[id] = capture
            state.captures.removeValue(forKey: id - min(capacity, Self.captureCapacity))?.release()
            state.entries.append { record in
                record.write(id)
                record.write(now.timeIntervalSinceReferenceDate)
                record.write(request.method)
                record.write(request.target)
                record.write(request.path)
                record.write(UInt64(request.headers.count))
                for field in request.headers {
                    record.write(field.name)
                    record.write(field.value)
                }
                record.write(request.body.prefix(Self.excerptLength))
                record.write(request.bodyStream?.declaredLength ?? request.body.count)
                record.write(status)
                record.write(milliseconds)
                record.write(request.connectionID)
                record.write(request.protocolName)
                record.write(request.streamID.map(Int.init) ?? -1)
                record.write(request.http2ConnectionID ?? 0)
                record.write(fault?.summary)
                record.write(relay != nil)
                if let relay {
                    record.write(relay.upstreamStatus ?? -1)
                    record.write(relay.latency.milliseconds.rounded(toPlaces: 3))
                }
            }
            return id
        }
        events?.publish(
            RequestEvent(
                request: AdminFeedEvent.Request(
                    id: id, method: request.method, target: request.target, status: status, durationMs: milliseconds,
                    connection: request.connectionID, fault: fault?.summary, proxied: relay != nil ? true : nil),
                at: now))
    }

    /// Entries, newest first, that `matcher` accepts and that arrived at or after `since`.
    package func entries(matching matcher: RequestMatcher = RequestMatcher(), since: Date? = nil, limit: Int = .max)
        -> [JournaledRequest]
    {
        var result: [JournaledRequest] = []
        for (entry, receivedAt) in decoded().reversed() where result.count < limit {
            if let since, receivedAt < since { break }
            if matcher.matches(entry) { result.append(entry) }
        }
        return result
    }

    /// Entries as `entries` gives them, each with what was kept of its answer.
    func entriesWithAnswers(matching matcher: RequestMatcher, since: Date?, limit: Int)
        -> [(entry: JournaledRequest, receivedAt: Date, answer: ResponseCapture.Snapshot?)]
    {
        let captures = state.withLock(\.captures)
        var result: [(JournaledRequest, Date, ResponseCapture.Snapshot?)] = []
        for (entry, receivedAt) in decoded().reversed() where result.count < limit {
            if let since, receivedAt < since { break }
            if matcher.matches(entry) { result.append((entry, receivedAt, captures[entry.id]?.snapshot)) }
        }
        return result
    }

    /// How many entries `matcher` accepts.
    package func count(matching matcher: RequestMatcher) -> Int {
        decoded().count { matcher.matches($0.entry) }
    }

    /// Forgets every entry; returns how many there were.
    @discardableResult
    package func clear() -> Int {
        state.withLock { state in
            defer {
                state.entries.removeAll()
                for capture in state.captures.values { capture.release() }
                state.captures = [:]
            }
            return state.entries.count
        }
    }

    /// Every entry with the time it arrived, oldest first.
    private func decoded() -> [(entry: JournaledRequest, receivedAt: Date)] {
        // A copy shares the chunks; decoding it does not hold up requests being recorded.
        let entries = state.withLock(\.entries)
        return entries.map { record in
            let id = record.readInt()
            let receivedAt = Date(timeIntervalSinceReferenceDate: record.readDouble())
            let method = record.readString()
            let target = record.readString()
            let path = record.readString()
            var headers: [String: String] = [:]
            for _ in 0..<record.readUInt64() {
                let name = record.readString()
                let value = record.readString()
                // Repeated fields are joined, as RFC 9110 §5.3 allows for a list.
                headers[name] = headers[name].map { $0 + ", " + value } ?? value
            }
            var entry = JournaledRequest(
                id: id, receivedAt: Timestamp.iso8601(receivedAt), method: method, target: target, path: path,
                headers: headers, bodyExcerpt: String(decoding: record.readBytes(), as: UTF8.self),
                bodySize: record.readInt(), status: record.readInt(), durationMs: record.readDouble(),
                connection: record.readUInt64(), fault: nil)
            entry.protocol = record.readString()
            let stream = record.readInt()
            let http2Connection = record.readUInt64()
            if stream >= 0 {
                entry.streamId = stream
                entry.http2Connection = http2Connection
                entry.http2Endings = http2Endings.endings(exchange: entry.connection)
            }
            entry.fault = record.readOptionalString()
            if record.readBool() {
                entry.proxied = true
                let upstreamStatus = record.readInt()
                entry.upstreamStatus = upstreamStatus >= 0 ? upstreamStatus : nil
                entry.upstreamLatencyMs = record.readDouble()
            }
            return (entry, receivedAt)
        }
    }
}
