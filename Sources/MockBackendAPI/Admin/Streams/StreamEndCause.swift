/// Why a stream connection ended, as the stream journal's `endReason` and the admin feed's
/// `stream.disconnected` say it (listed in `openapi/openapi.yaml`, `StreamConnection`).
public enum StreamEndCause: String, Sendable, Codable, CaseIterable {
    /// The stream ended: its job or session finished.
    case finished
    /// No event for the stream's idle timeout (the user-info stream).
    case idle
    /// Its session expired (`SESSION_EXPIRATION`, any reason but Logout).
    case sessionExpired = "session_expired"
    /// Its session was logged out (`SESSION_EXPIRATION` with Logout).
    case logout
    /// Its session was ended elsewhere (`SESSION_TERMINATED`).
    case sessionTerminated = "session_terminated"
    /// `POST /__admin/streams/{stream}/disconnect`, in whichever mode.
    case admin
    /// `POST /__admin/reset`.
    case reset
    /// The client closed the connection, or it broke.
    case clientClosed = "client_closed"
    /// The client read too slowly and its unsent live bytes passed the bound.
    case slowReader = "slow_reader"
    /// A fault rule ended the connection.
    case fault
    /// The server is stopping.
    case serverStopping = "server_stopping"
    /// The connection closed for another reason (a timeout).
    case connectionClosed = "connection_closed"
    /// A proxied stream's upstream closed or reset its connection before the stream's end;
    /// the client's connection was dropped the same way.
    case upstreamClosed = "upstream_closed"
}
