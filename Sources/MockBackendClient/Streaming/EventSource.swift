import Foundation
import ServerSentEvents

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
public final class EventSource: Sendable {
    public let url: URL
    public let configuration: EventSourceConfiguration
    /// The events, in order, across reconnections. One consumer: cancelling its task stops
    /// the source.
    public let events: AsyncThrowingStream<ServerSentEvent, any Error>
    private let driver: EventSourceDriver

    /// - Parameters:
    ///   - clock: what backoff delays are slept on, and how long a connection stayed open
    ///     is measured on; tests pass their own.
    ///   - random: the jitter source, returning values in 0..<1.
    public init(
        url: URL, configuration: EventSourceConfiguration = EventSourceConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.url = url
        self.configuration = configuration
        let (events, eventSink) = AsyncThrowingStream.makeStream(of: ServerSentEvent.self)
        self.events = events
        let driver = EventSourceDriver(
            url: url, configuration: configuration, clock: clock, random: random, eventSink: eventSink)
        self.driver = driver
        eventSink.onTermination = { [weak driver] termination in
            // The consumer's task was cancelled, or it dropped the stream: nobody reads on.
            if case .cancelled = termination { driver?.stop(.stopped) }
        }
    }

    deinit {
        driver.stop(.stopped)
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
}
