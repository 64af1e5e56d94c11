import MockBackend

extension AdminClient {
    /// `/__admin/sessions`: the player sessions of every API (a generation token is one too).
    public struct Sessions: Sendable {
        let http: KitHTTP

        /// `GET /__admin/sessions`: every session, live and ended.
        public func list() async throws -> [AdminSession] {
            try await http.call("GET", "/__admin/sessions")
        }

        /// `POST /__admin/sessions/{id}/expire`: the session ends with any reason and code
        /// (default `Expired`, 1); its user-info streams get `SESSION_EXPIRATION` and end,
        /// and it answers 403 (401 on the generation API) from now on. One of the backend's
        /// own reasons (`Expired` 1, `Logout` 2, `Kicked` 3) may be named by either field.
        @discardableResult
        public func expire(_ sessionId: String, reason: String? = nil, code: Int? = nil) async throws
            -> SessionEnding
        {
            try await http.call(
                "POST", "/__admin/sessions/\(KitHTTP.segment(sessionId))/expire",
                json: SessionEndRequest(reason: reason, code: code))
        }

        /// `POST /__admin/sessions/{id}/terminate`: `SESSION_TERMINATED` (default reason
        /// "Logged out elsewhere"), and the session ends.
        @discardableResult
        public func terminate(_ sessionId: String, reason: String? = nil) async throws -> SessionEnding {
            try await http.call(
                "POST", "/__admin/sessions/\(KitHTTP.segment(sessionId))/terminate",
                json: SessionEndRequest(reason: reason))
        }
    }
}
