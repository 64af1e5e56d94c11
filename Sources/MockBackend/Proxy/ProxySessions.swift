import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport
import ServerSentEvents

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The session overlay of proxy mode: every session token seen on proxied requests
/// (`--proxy-token` says where it is), and the ones an admin expired. An expired token's
/// requests are answered here, never sent upstream: with the upstream's own last 401 or
/// 403, or what the expiry asked for; its open proxied streams get the terminal event, if
/// one was given, and end.
final class ProxySessions: Sendable {
    /// An answer kept to give again: status, fields, body.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]

        var response: HTTPResponse {
            HTTPResponse(status: status, headers: headers, body: .bytes(body))
        }
    }

    private struct Entry {
        let token: String
        let id: String
        var firstSeen: Date
        var lastSeen: Date
        var requests = 0
        var expiredAt: Date?
        var answer: Answer?
        /// Its open proxied streams, by connection.
        var streams: [UInt64: EventStream] = [:]
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Token by id.
        var tokens: [String: String] = [:]
        var nextID = 1
        /// The last 401 or 403 an upstream sent, for expiries that name no answer.
        var lastRefusal: Answer?
    }

    /// The largest upstream refusal body kept.
    static let maxKeptBody = 64 * 1024
    /// Tokens remembered at most; the least recently seen active one goes first.
    static let capacity = 10_000

    private let state = LockedValue(State())

    /// Notes a request carrying `token`; returns the answer to give instead of sending it
    /// upstream when the token is expired.
    func noteRequest(token: String) -> HTTPResponse? {
        let now = Date()
        return state.withLock { state in
            if state.entries[token] == nil {
                if state.entries.count >= Self.capacity { Self.forgetOldestActive(in: &state) }
                let id = "t\(state.nextID)"
                state.nextID += 1
                state.entries[token] = Entry(token: token, id: id, firstSeen: now, lastSeen: now)
                state.tokens[id] = token
            }
            state.entries[token]?.requests += 1
            state.entries[token]?.lastSeen = now
            return state.entries[token]?.answer?.response
        }
    }

    /// Keeps an upstream's 401 or 403, the default answer of later expiries.
    func noteRefusal(_ refusal: Answer) {
        state.withLock { $0.lastRefusal = refusal }
    }

    /// Notes a proxied stream of `token` opened on `connection`; false when the token is
    /// expired (the stream is then ended by the caller).
    func streamOpened(token: String, stream: EventStream, connection: UInt64) -> Bool {
        state.withLock { state in
            guard var entry = state.entries[token], entry.answer == nil else { return false }
            entry.streams[connection] = stream
            state.entries[token] = entry
            return true
        }
    }

    func streamClosed(token: String, connection: UInt64) {
        state.withLock { state in
            state.entries[token]?.streams[connection] = nil
        }
    }

    /// Expires the token named by `key` (the token, or its id): from now on its requests get
    /// the expired answer; its open streams get `expiry.event`, then end.
    func expire(_ key: String, _ expiry: ProxySessionExpiry) throws -> ProxySessionExpired {
        let answer = Self.answer(for: expiry, fallback: state.withLock(\.lastRefusal))
        let now = Date()
        let (session, token, streams) = try state.withLock { state in
            guard let token = Self.token(for: key, in: state), var entry = state.entries[token] else {
                throw Self.unknown(key)
            }
            entry.answer = answer
            entry.expiredAt = now
            let streams = entry.streams
            entry.streams = [:]
            state.entries[token] = entry
            return (Self.snapshot(entry), token, streams)
        }
        let event = expiry.event.map { Self.encode($0, token: token) }
        var ended = 0
        for (connection, stream) in streams
        where stream.endRelay(of: connection, with: event, cause: .sessionExpired) {
            ended += 1
        }
        return ProxySessionExpired(session: session, endedStreams: ended)
    }

    /// Lifts an expiry: the token's requests go upstream again.
    func lift(_ key: String) throws -> ProxySession {
        try state.withLock { state in
            guard let token = Self.token(for: key, in: state), var entry = state.entries[token] else {
                throw Self.unknown(key)
            }
            entry.answer = nil
            entry.expiredAt = nil
            state.entries[token] = entry
            return Self.snapshot(entry)
        }
    }

    /// Every token seen, in the order first seen, redacted.
    func list() -> [ProxySession] {
        state.withLock { state in
            state.entries.values.sorted {
                $0.firstSeen < $1.firstSeen || ($0.firstSeen == $1.firstSeen && $0.id < $1.id)
            }
            .map(Self.snapshot)
        }
    }

    /// Forgets every token and the kept refusal (`POST /__admin/reset`).
    func reset() {
        state.withLock { $0 = State() }
    }

    // MARK: Helpers

    /// Whether `key` has the shape of a token's id (`t1`, `t2`, …) rather than a token.
    static func isID(_ key: some StringProtocol) -> Bool {
        key.count > 1 && key.first == "t" && key.dropFirst().allSatisfy { ("0"..."9").contains($0) }
    }

    private static func token(for key: String, in state: State) -> String? {
        state.entries[key] != nil ? key : state.tokens[key]
    }

    private static func unknown(_ key: String) -> ProblemDetails {
        ProblemDetails(
            status: 404, code: "PROXY_SESSION_NOT_FOUND",
            detail:
                "No token '\(SecretRedaction.redact(key))' has been seen on a proxied request; GET /__admin/proxy/sessions lists them, by id."
        )
    }

    private static func snapshot(_ entry: Entry) -> ProxySession {
        ProxySession(
            id: entry.id, token: SecretRedaction.redact(entry.token), state: entry.answer == nil ? "active" : "expired",
            firstSeenAt: Timestamp.iso8601(entry.firstSeen), lastSeenAt: Timestamp.iso8601(entry.lastSeen),
            requests: entry.requests, openStreams: entry.streams.count,
            expiredAt: entry.expiredAt.map(Timestamp.iso8601))
    }

    private static func forgetOldestActive(in state: inout State) {
        guard let oldest = state.entries.values.filter({ $0.answer == nil }).min(by: { $0.lastSeen < $1.lastSeen })
        else { return }
        state.entries[oldest.token] = nil
        state.tokens[oldest.id] = nil
    }

    /// The answer an expiry gives: what it names, else the upstream's last refusal, else
    /// 401 `SESSION_EXPIRED`.
    static func answer(for expiry: ProxySessionExpiry, fallback: Answer?) -> Answer {
        let status = expiry.status ?? (expiry.body == nil ? fallback?.status : nil) ?? 401
        if let body = expiry.body {
            switch body {
            case .string(let text):
                return Answer(
                    status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
            default:
                return Answer(status: status, headers: ["Content-Type": MediaType.json], body: Array(body.text.utf8))
            }
        }
        if expiry.status == nil, let fallback { return fallback }
        let problem = ProblemDetails(
            status: status, code: "SESSION_EXPIRED", detail: "The session was expired through the admin API.")
        let response = problem.response
        guard case .bytes(let bytes) = response.body else { return Answer(status: status, headers: [:], body: []) }
        return Answer(status: status, headers: response.headers, body: bytes)
    }

    /// The terminal event's bytes, `{{token}}` replaced in its data.
    static func encode(_ event: ProxyTerminalEvent, token: String) -> [UInt8] {
        let text: String
        if case .string(let string) = event.data { text = string } else { text = event.data.text }
        let frame = ServerSentEvent(type: event.event, data: text.replacing("{{token}}", with: token))
        return SSEEncoder.encode(frame)
    }
}
