/// Counts of what a server holds right now, for tests that check nothing leaks.
public struct ServerStatistics: Sendable, Equatable {
    /// Connections accepted and not yet closed.
    public var openConnections = 0
    /// HTTP/2 streams begun and not yet ended, on all connections.
    public var openHTTP2Streams = 0
    /// Connection objects alive in memory (a closed connection that lingers here is a leak).
    public var liveConnectionObjects = 0
    /// Sockets whose descriptor is still open.
    public var openDescriptors = 0
    /// Dispatch timers created and not yet cancelled.
    public var activeTimers = 0
    /// Connections accepted since start.
    public var acceptedConnections = 0
    /// Requests answered since start.
    public var requestsServed = 0
    /// Event-loop threads of the server's own (`ReadinessMechanism.epoll`) still running;
    /// zero once `stop()` has returned and they have seen it.
    public var loopThreads = 0
}
