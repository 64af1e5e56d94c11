import Foundation
import ServerSentEvents

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An event-stream client with reconnection done right: exponential backoff with jitter,
/// the server's `retry:` honoured (within bounds), `Last-Event-ID` resent, a stop on 204,
/// 401/403 or a wrong content type, and a hand-over to a polling fallback when
/// reconnection gives up.
///
/// ```swift
/// let source = EventSource(url: url, configuration: .init(policy: .generation))
/// source.start()
/// for try await event in source.events { ... }
/// ```
/// `events` ends normally when the source stops for an expected reason (204, `stop()`,
/// polling finished) and throws `EventSourceError` when it stops on a failure.
///
/// Lifetime: the iteration of `events` owns the connection. Cancelling the task that
/// iterates it stops the source: the request is cancelled and no reconnection follows.
/// Letting go of the last reference to the source stops it too, so keep one for as long
/// as the stream should run. The connection runs on a task that does not hold the source.
///
/// Requests: `init(url:)` sends `GET url` with the configuration's headers. For anything
/// else — a POST with a body, a token fetched afresh for every reconnection — pass a
/// `requestProvider`; it is called before every connection. The source sets `Accept`,
/// `Cache-Control` and `Last-Event-ID` on what it returns.
///
/// For an app going to the background and back: `suspend()` closes the connection,
/// `resume()` reopens it from the last event id, `reconnectNow()` drops the connection (or
/// skips the backoff) and connects at once, the network having come back, say.
public final class EventSource: Sendable {
    /// The URL given to `init(url:)`; nil when a request provider makes the requests.
    public let url: URL?
    public let configuration: EventSourceConfiguration
    /// The events, in order, across reconnections. One consumer: cancelling its task stops
    /// the source.
    public let events: AsyncThrowingStream<ServerSentEvent, any Error>
    /// Stops the driver when the consumer of `events` leaves or the source is released.
    private let lifetime: StreamLifetime<EventSourceDriver>
    private var driver: EventSourceDriver { lifetime.work }

    /// A source that sends `GET url` with `configuration.headers`.
    ///
    /// - Parameters:
    ///   - clock: what backoff delays are slept on, and how long a connection stayed open
    ///     is measured on; tests pass their own.
    ///   - random: the jitter source, returning values in 0..<1.
    public convenience init(
        url: URL, configuration: EventSourceConfiguration = EventSourceConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.init(
            url: url, label: url.absoluteString, configuration: configuration, clock: clock, random: random,
            requestProvider: { URLRequest(url: url) })
    }

    /// A source whose every connection sends the request `requestProvider` returns then:
    /// fresh credentials on each reconnection, or a method and body other than GET's.
    ///
    /// A provider that throws stops the source: `events` throws `EventSourceError` with
    /// `.requestFailed`, the thrown error as its `underlyingError`. Retry inside the
    /// provider what is worth retrying.
    ///
    /// - Parameters:
    ///   - clock: what backoff delays are slept on, and how long a connection stayed open
    ///     is measured on; tests pass their own.
    ///   - random: the jitter source, returning values in 0..<1.
    ///   - requestProvider: makes the request of each connection.
    public convenience init(
        configuration: EventSourceConfiguration = EventSourceConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        requestProvider: @escaping @Sendable () async throws -> URLRequest
    ) {
        self.init(
            url: nil, label: "request provider", configuration: configuration, clock: clock, random: random,
            requestProvider: requestProvider)
    }

    private init(
        url: URL?, label: String, configuration: EventSourceConfiguration, clock: any Clock<Duration>,
        random: @escaping @Sendable () -> Double, requestProvider: @escaping @Sendable () async throws -> URLRequest
    ) {
        self.url = url
        self.configuration = configuration
        let (events, eventSink) = AsyncThrowingStream.makeStream(of: ServerSentEvent.self)
        self.events = events
        let driver = EventSourceDriver(
            label: label, configuration: configuration, clock: clock, random: random,
            requestProvider: requestProvider, eventSink: eventSink)
        lifetime = StreamLifetime(of: driver, feeding: eventSink) { $0.stop(.stopped) }
    }

    /// Every state change from now on, starting with the state now once the source has
    /// started. Each use gives a new stream, so any number of consumers can follow the
    /// states; every stream finishes when the source stops.
    public var states: AsyncStream<EventSourceState> { driver.broadcaster.subscribe() }

    /// The state now.
    public var state: EventSourceState { driver.state }

    /// The last event ID dispatched: what the next connection sends as `Last-Event-ID`.
    public var lastEventID: String { driver.lastEventID }

    /// Connects; does nothing if already started or stopped.
    public func start() {
        driver.start()
    }

    /// Stops for good: the request is cancelled and no reconnection follows.
    public func stop(_ reason: EventSourceStopReason = .stopped) {
        driver.stop(reason)
    }

    /// Closes the connection, or ends the backoff, and stays closed (`.suspended`) until
    /// `resume()` or `reconnectNow()`: for an app going to the background. Does nothing
    /// before `start()`, after a stop, or while the polling fallback runs.
    public func suspend() {
        driver.suspend()
    }

    /// Reconnects after `suspend()` at once, sending the last event id dispatched, so what
    /// happened meanwhile is replayed; the attempts count from zero again.
    public func resume() {
        driver.resume()
    }

    /// Drops the connection, or skips the backoff being waited out, and connects at once
    /// from the last event id, the attempts counted from zero again; resumes a suspended
    /// source. Does nothing before `start()`, after a stop, or while polling.
    public func reconnectNow() {
        driver.reconnectNow()
    }
}
