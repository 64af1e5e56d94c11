/// Why a status read failed.
///
/// `StatusPoller.statuses()` retries `unavailable` on its next tick and ends with any
/// other case at once: retrying cannot fix those.
public enum StatusPollingError: Error, Sendable, Equatable {
    /// 401 or 403: the credentials are missing or stale. Log in again, then start anew.
    case unauthorized(status: Int)
    /// 404: there is no such job (or it is no longer kept).
    case notFound
    /// Another status that retrying will not fix (400, 410, ...).
    case httpStatus(Int)
    /// A 2xx whose body the decoder rejected: the client and server disagree on the format.
    case malformedStatus(String)
    /// A failure the next tick may not meet: a 5xx, 408 or 429 (with its status), or a
    /// network error (status nil).
    case unavailable(status: Int?)

    /// True when trying again later may succeed.
    public var isTransient: Bool {
        if case .unavailable = self { return true }
        return false
    }
}
