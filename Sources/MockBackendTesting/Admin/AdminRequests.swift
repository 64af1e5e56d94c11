import Foundation
import MockBackend

extension AdminClient {
    /// `/__admin/requests`: the request journal — every request outside `/__admin`, the
    /// last 5,000.
    public struct Requests: Sendable {
        let http: KitHTTP

        /// `GET /__admin/requests`, newest first: by `method` and a `path` glob (`*` within
        /// a segment, `**` across), received after `since`, at most `limit` (1–5,000, default 100).
        public func list(method: String? = nil, path: String? = nil, since: Date? = nil, limit: Int? = nil)
            async throws -> [JournaledRequest]
        {
            var query: [URLQueryItem] = []
            if let method { query.append(URLQueryItem(name: "method", value: method)) }
            if let path { query.append(URLQueryItem(name: "path", value: path)) }
            if let since {
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                query.append(URLQueryItem(name: "since", value: formatter.string(from: since)))
            }
            if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
            return try await http.call("GET", "/__admin/requests", query: query)
        }

        /// `POST /__admin/requests/count`: how many journaled requests `matcher` matches,
        /// e.g. "twenty concurrent 403s caused exactly one re-login".
        public func count(_ matcher: RequestMatcher) async throws -> Int {
            let answer: RequestCount = try await http.call("POST", "/__admin/requests/count", json: matcher)
            return answer.count
        }

        /// `DELETE /__admin/requests`. Returns how many were cleared.
        @discardableResult
        public func clear() async throws -> Int {
            let answer: RequestsCleared = try await http.call("DELETE", "/__admin/requests")
            return answer.cleared
        }
    }
}
