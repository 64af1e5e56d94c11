import Foundation
import MockBackend
import MockBackendAPI

extension AdminClient {
    /// `/__admin/streams`: every event stream (job streams, user-info streams, channels,
    /// the admin feed) and the journal of their connections.
    public struct Streams: Sendable {
        let http: KitHTTP

        /// `POST /__admin/streams/{stream}/events`: an event into a live stream, or into a
        /// channel (`channels/<name>`, made on first use). `data` is text or any JSON;
        /// without it only `retry` is advertised. `connection` sends to one subscriber only;
        /// `count` above one floods the event that many times, each with its own id, at
        /// the subscribers' pace (it cannot go with `id` or `connection`).
        @discardableResult
        public func push(
            to stream: String, data: JSONValue?, event: String? = nil, id: String? = nil, retry: Int? = nil,
            connection: UInt64? = nil, count: Int? = nil
        ) async throws -> StreamPush {
            try await http.call(
                "POST", "/__admin/streams/\(Self.path(stream))/events",
                json: StreamPushRequest(
                    event: event, data: data, id: id, retry: retry, connection: connection, count: count))
        }

        /// `POST /__admin/streams/{stream}/disconnect`: ends the stream's connections (or
        /// one, by `connection`) as `mode` says. The clients reconnect as they would after
        /// a network failure or a server's proper end. Returns how many ended.
        @discardableResult
        public func disconnect(_ stream: String, mode: DisconnectMode = .broken, connection: UInt64? = nil)
            async throws -> Int
        {
            let answer: StreamDisconnect = try await http.call(
                "POST", "/__admin/streams/\(Self.path(stream))/disconnect",
                json: StreamDisconnectRequest(connection: connection, mode: mode))
            return answer.disconnected
        }

        /// `GET /__admin/streams`: every stream, its last id and its subscribers.
        public func list() async throws -> [EventStreamSnapshot] {
            try await http.call("GET", "/__admin/streams")
        }

        /// `GET /__admin/streams/connections`: the stream journal, of one stream or all —
        /// every open connection and the last 1,000 ended ones, oldest first: the
        /// Last-Event-ID each sent, the ids delivered, the reconnect gap, how it ended.
        public func connections(stream: String? = nil) async throws -> [StreamConnectionSnapshot] {
            try await http.call(
                "GET", "/__admin/streams/connections",
                query: stream.map { [URLQueryItem(name: "stream", value: $0)] } ?? [])
        }

        /// A stream name in a path: its segments encoded one by one, the slashes kept.
        static func path(_ stream: String) -> String {
            stream.split(separator: "/", omittingEmptySubsequences: false).map { KitHTTP.segment(String($0)) }
                .joined(separator: "/")
        }
    }
}
